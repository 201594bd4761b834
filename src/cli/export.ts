import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { openDatabase } from '../db/client.js';
import { exportNdjson } from '../ingest/export.js';
import { loadBulkConfig } from './bulk-config.js';
import { parseCommandLine, runCommand } from './command-line.js';

const USAGE = `Usage: npm run export -- [--out FILE]        (in the image: node dist/cli/export.js --out FILE)

Writes every record of DATABASE_URL (or the embedded database) as NDJSON, one record a line, in a
fixed order: the same data gives the same bytes, and npm run import of the file into an empty
database makes it answer every request as this one does. No --out, or --out -, writes to stdout.
API tokens are never exported.`;

/** `npm run export`: the database as one NDJSON file, read in one snapshot. */
async function main(): Promise<void> {
  const parsed = parseCommandLine(USAGE, { options: { out: { type: 'string' } } });
  if (!parsed) return;
  const { values } = parsed;
  const toStdout = values.out === undefined || values.out === '-';
  // A file appears under its name only when complete: a failed export leaves no truncated file behind.
  const partial = toStdout ? undefined : `${values.out}.partial`;
  const out: Writable = partial ? createWriteStream(partial) : process.stdout;
  const database = await openDatabase(loadBulkConfig());
  const started = Date.now();
  let count = 0;
  try {
    count = await exportNdjson(database, (chunk) => write(out, chunk));
    if (partial) {
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
      await rename(partial, values.out!);
    }
    const where = toStdout ? 'stdout' : values.out;
    console.error(`Exported ${count.toLocaleString('en-US')} records from ${database.location} to ${where} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    if (partial) {
      out.destroy();
      await rm(partial, { force: true });
    }
    throw error;
  } finally {
    await database.close();
  }
}

/** Waits for the stream to drain when it asks to, so memory holds one chunk however slow the reader. */
function write(out: Writable, data: string): Promise<void> {
  if (data === '') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const ok = out.write(data, (error) => (error ? reject(error) : undefined));
    if (ok) resolve();
    else out.once('drain', resolve);
  });
}

runCommand(USAGE, 'export failed', main);
