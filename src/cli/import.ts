import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { openDatabase } from '../db/client.js';
import { recordsFromNdjson } from '../ingest/ndjson-source.js';
import { RECORD_KINDS } from '../ingest/records.js';
import { DEADLOCK_ATTEMPTS, IngestError, type IngestPhase, ingest } from '../ingest/write.js';
import { loadBulkConfig } from './bulk-config.js';
import { CommandError, parseCommandLine, runCommand, UsageError } from './command-line.js';
import { createProgress } from './progress.js';

const USAGE = `Usage: npm run import -- FILE [--dry-run]        (in the image: node dist/cli/import.js FILE)

Writes the records of an NDJSON file (- reads stdin) into DATABASE_URL (or the embedded database),
by natural key, in one transaction: all of them or, on any error, none. Importing the same file
again changes nothing. --dry-run validates, checks and merges, then rolls back.
The format: docs/writing-data.md and docs/import.schema.json.`;

/** `npm run import`: a file through src/ingest/ into the database. */
async function main(): Promise<void> {
  const parsed = parseCommandLine(USAGE, { options: { 'dry-run': { type: 'boolean', default: false } }, allowPositionals: true });
  if (!parsed) return;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('give exactly one FILE (or - for stdin)');
  const path = positionals[0]!;
  const label = path === '-' ? 'stdin' : path;
  const size = path === '-' ? undefined : (await stat(path).catch(() => undefined))?.size;
  if (path !== '-' && size === undefined) throw new CommandError(`${path}: no such file`);
  const input = path === '-' ? process.stdin : createReadStream(path);

  const database = await openDatabase(loadBulkConfig());
  const started = Date.now();
  const progress = createProgress('importing', size, 'records');
  let bytes = 0;
  const phases: string[] = [];
  const steps: string[] = [];
  try {
    await database.migrate();
    const summary = await ingest(
      database,
      recordsFromNdjson(input, (chunk) => {
        bytes += chunk;
      }),
      {
        dryRun: values['dry-run'],
        onRecord: (count) => {
          if (count % 1000 === 0) progress.update(bytes, count);
        },
        onPhase: (phase: IngestPhase, ms) => {
          if (phase === 'stage') progress.stop();
          phases.push(`  ${PHASE_NAMES[phase].padEnd(34)} ${(ms / 1000).toFixed(1)} s`);
          if (phase === 'merge') phases.push(...steps.splice(0));
        },
        // The merge's own steps, once they take long enough to matter.
        onStep: (step, ms) => {
          if (ms >= 1000) steps.push(`    ${step.padEnd(32)} ${(ms / 1000).toFixed(1)} s`);
        },
        onRetry: (attempt, error) => {
          console.error(`${label}: ${error.message.split('\n')[0]}; writing again (attempt ${attempt + 1} of ${DEADLOCK_ATTEMPTS})`);
        },
      },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`${values['dry-run'] ? 'Dry run (nothing written): would import' : 'Imported'} ${label} into ${database.location} in ${seconds} s:`);
    console.log(`  ${'kind'.padEnd(16)} ${['inserted', 'updated', 'deleted', 'unchanged'].map((h) => h.padStart(10)).join(' ')}`);
    for (const { kind } of RECORD_KINDS) {
      const counts = summary[kind];
      if (counts.inserted + counts.updated + counts.deleted + counts.unchanged === 0) continue;
      const cells = [counts.inserted, counts.updated, counts.deleted, counts.unchanged].map((n) => n.toLocaleString('en-US').padStart(10));
      console.log(`  ${kind.padEnd(16)} ${cells.join(' ')}`);
    }
    console.log(`Time by step:\n${phases.join('\n')}`);
  } catch (error) {
    progress.stop();
    if (error instanceof IngestError) {
      for (const problem of error.problems) console.error(problem.line ? `${label}:${problem.line}: ${problem.message}` : `${label}: ${problem.message}`);
      console.error('Nothing was imported.');
      process.exitCode = 1;
      return;
    }
    throw error;
  } finally {
    await database.close();
  }
}

const PHASE_NAMES: Record<IngestPhase, string> = {
  stage: 'read, validate and stage records',
  check: 'check duplicate keys',
  merge: 'merge into the tables',
  'rebuild indexes': 'rebuild indexes (empty database)',
  derive: 'claim totals and documents',
};

runCommand(USAGE, 'import failed', main);
