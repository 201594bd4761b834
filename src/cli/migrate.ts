import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';

/**
 * `npm run db:migrate`: applies migrations/ to MIGRATE_DATABASE_URL, else DATABASE_URL, else the
 * embedded database. A migration job may be given only the schema owner's MIGRATE_DATABASE_URL,
 * while the API runs with a read-only DATABASE_URL.
 */
try {
  const config = loadConfig();
  const database = await openDatabase({ ...config, DATABASE_URL: config.MIGRATE_DATABASE_URL ?? config.DATABASE_URL });
  try {
    await database.migrate();
    console.log(`migrations applied to ${database.location}`);
  } finally {
    await database.close();
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `migration failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
