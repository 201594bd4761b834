import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CONFIG_DOCUMENT, configTable, withConfigTable } from '../docs/config-table.js';

/** `npm run docs:config`: prints the configuration table; with `--write`, updates its copy in docs/configuration.md. */
const documentPath = fileURLToPath(new URL(`../../${CONFIG_DOCUMENT}`, import.meta.url));
if (process.argv.includes('--write')) {
  await writeFile(documentPath, withConfigTable(await readFile(documentPath, 'utf8')));
  console.log(`updated the configuration table in ${documentPath}`);
} else {
  console.log(configTable());
}
