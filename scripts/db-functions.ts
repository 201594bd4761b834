import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  describePendingChanges,
  hasPendingChanges,
  pendingChanges,
  readFunctionFiles,
  readMigratedDefinitions,
  renderMigration,
} from '../src/db/function-sources.js';
import { MIGRATIONS_FOLDER } from '../src/db/migrate.js';

const USAGE = `Usage: npm run db:functions [-- --name NAME] [--check]

Writes a new custom migration (registered in the journal by drizzle-kit generate --custom) holding
the current definition of every function in src/db/sql/ that differs from what the migrations so far
define, with its triggers; drops functions and triggers that no file defines any more.
--check writes nothing and exits 1 when such a migration is missing (CI runs it).`;

/** `npm run db:functions`: src/db/sql/ -> a generated migration. See docs/writing-data.md. */
function main(): void {
  const { values } = parseArgs({
    options: { name: { type: 'string' }, check: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const changes = pendingChanges(readFunctionFiles(), readMigratedDefinitions(MIGRATIONS_FOLDER));
  if (!hasPendingChanges(changes)) {
    console.log('The migrations define every function in src/db/sql/ as its file does; nothing to generate.');
    return;
  }
  const lines = describePendingChanges(changes);
  if (values.check) {
    console.error(`Function files without their migration (run npm run db:functions and commit the result):\n  ${lines.join('\n  ')}`);
    process.exitCode = 1;
    return;
  }
  const name = values.name ?? (changes.files.length === 1 ? changes.files[0]!.name : 'functions');
  // drizzle-kit numbers the file, writes its snapshot and its journal entry; we fill in the SQL.
  execFileSync(join('node_modules', '.bin', 'drizzle-kit'), ['generate', '--custom', `--name=${name}`], { stdio: 'inherit' });
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  const tag = journal.entries.at(-1)!.tag;
  writeFileSync(join(MIGRATIONS_FOLDER, `${tag}.sql`), renderMigration(changes));
  const after = pendingChanges(readFunctionFiles(), readMigratedDefinitions(MIGRATIONS_FOLDER));
  if (hasPendingChanges(after)) throw new Error(`migrations/${tag}.sql still leaves: ${describePendingChanges(after).join('; ')}`);
  console.log(`migrations/${tag}.sql:\n  ${lines.join('\n  ')}`);
}

main();
