import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { configTable, withConfigTable } from '../docs/config-table.js';

/** `npm run docs:config`: prints the configuration table; with `--write`, updates README.md's copy. */
const readmePath = fileURLToPath(new URL('../../README.md', import.meta.url));
if (process.argv.includes('--write')) {
  await writeFile(readmePath, withConfigTable(await readFile(readmePath, 'utf8')));
  console.log(`updated the configuration table in ${readmePath}`);
} else {
  console.log(configTable());
}
