import { loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { parseCommandLine, runCommand } from './command-line.js';

const USAGE = `Usage: npm run db:migrate        (in the image: node dist/cli/migrate.js)

Applies the pending migrations of migrations/ to MIGRATE_DATABASE_URL, else DATABASE_URL, else the
embedded database at PGLITE_DATA_DIR (stop the server first: the embedded database has one user at
a time). Takes no arguments.`;

/**
 * `npm run db:migrate`: a migration job may be given only the schema owner's MIGRATE_DATABASE_URL,
 * while the API runs with a read-only DATABASE_URL.
 */
async function main(): Promise<void> {
  if (!parseCommandLine(USAGE, {})) return;
  const config = loadConfig();
  const database = await openDatabase({ ...config, DATABASE_URL: config.MIGRATE_DATABASE_URL ?? config.DATABASE_URL });
  try {
    await database.migrate();
    console.log(`migrations applied to ${database.location}`);
  } finally {
    await database.close();
  }
}

runCommand(USAGE, 'migration failed', main);
