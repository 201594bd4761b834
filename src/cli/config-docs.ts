import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CONFIG_DOCUMENT, configTable, withConfigTable } from '../docs/config-table.js';
import { parseCommandLine, runCommand } from './command-line.js';

const USAGE = `Usage: npm run docs:config [-- --write]

Prints the configuration table (every environment variable the service reads, from its schema in
src/config.ts); with --write, replaces its copy in ${CONFIG_DOCUMENT} instead.`;

async function main(): Promise<void> {
  const parsed = parseCommandLine(USAGE, { options: { write: { type: 'boolean', default: false } } });
  if (!parsed) return;
  if (!parsed.values.write) {
    console.log(configTable());
    return;
  }
  const documentPath = fileURLToPath(new URL(`../../${CONFIG_DOCUMENT}`, import.meta.url));
  await writeFile(documentPath, withConfigTable(await readFile(documentPath, 'utf8')));
  console.log(`updated the configuration table in ${documentPath}`);
}

runCommand(USAGE, 'configuration table failed', main);
