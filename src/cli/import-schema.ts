import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { importJsonSchema } from '../ingest/records.js';
import { parseCommandLine, runCommand } from './command-line.js';

const USAGE = `Usage: npm run import:schema

Writes docs/import.schema.json, the JSON Schema of the import format, from the record schemas (a
test keeps it current). Takes no arguments.`;

async function main(): Promise<void> {
  if (!parseCommandLine(USAGE, {})) return;
  const target = fileURLToPath(new URL('../../docs/import.schema.json', import.meta.url));
  await writeFile(target, `${JSON.stringify(importJsonSchema(), null, 2)}\n`);
  console.log(`wrote ${target}`);
}

runCommand(USAGE, 'import schema export failed', main);
