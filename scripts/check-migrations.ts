import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describePendingChanges, hasPendingChanges, pendingChanges, readFunctionFiles, readMigratedDefinitions } from '../src/db/function-sources.js';
import { MIGRATIONS_FOLDER } from '../src/db/migrate.js';

/**
 * `npm run db:check` (CI): the committed migrations are complete.
 * 1. drizzle-kit generate, run against a temporary copy of migrations/, writes nothing: every change
 *    to src/db/schema.ts has its committed migration. (drizzle-kit's own `check` only looks for
 *    conflicts between migrations, not for a schema ahead of them.)
 * 2. Every function file in src/db/sql/ equals what the migrations define (npm run db:functions).
 */
function main(): void {
  const problems: string[] = [];
  const copy = mkdtempSync(join(tmpdir(), 'campaign-migrations-'));
  try {
    cpSync(MIGRATIONS_FOLDER, copy, { recursive: true });
    const before = new Set(readdirSync(copy));
    // drizzle-kit reads --out as relative to the working directory, whatever it is given.
    const output = execFileSync(
      join('node_modules', '.bin', 'drizzle-kit'),
      ['generate', '--dialect=postgresql', '--schema=./src/db/schema.ts', `--out=${relative(process.cwd(), copy)}`, '--name=uncommitted'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
    );
    const generated = readdirSync(copy).filter((file) => !before.has(file) && file.endsWith('.sql'));
    // drizzle-kit can fail and still exit 0: no new file must come with its own "nothing to do".
    if (generated.length === 0 && !/No schema changes/.test(output)) {
      throw new Error(`drizzle-kit generate neither wrote a migration nor reported "No schema changes":\n${output}`);
    }
    for (const entry of generated) {
      problems.push(
        `src/db/schema.ts has changes without a migration (run npm run db:generate and commit it); drizzle-kit would write:\n${readFileSync(join(copy, entry), 'utf8')}`,
      );
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
  const changes = pendingChanges(readFunctionFiles(), readMigratedDefinitions(MIGRATIONS_FOLDER));
  if (hasPendingChanges(changes)) {
    problems.push(`function files without their migration (run npm run db:functions and commit it):\n  ${describePendingChanges(changes).join('\n  ')}`);
  }
  if (problems.length > 0) {
    console.error(`db:check failed:\n${problems.join('\n')}`);
    process.exitCode = 1;
    return;
  }
  console.log('db:check: the schema and every function file have their committed migrations');
}

main();
