import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';

/** `npm run db:migrate`: applies migrations/ to DATABASE_URL (or the embedded database). */
try {
  const config = loadConfig();
  const database = await openDatabase(config);
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
