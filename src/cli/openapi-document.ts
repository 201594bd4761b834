import { pino } from 'pino';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';

/**
 * The API document exactly as `openapi.json` at the repository root holds it: built by the real
 * app over a throwaway in-memory database that is never queried, with the default configuration
 * only (never the environment's), so that every machine generates the same bytes.
 */
export async function generateOpenApiDocument(): Promise<string> {
  const config = loadConfig({ PGLITE_DATA_DIR: 'memory://', LOG_LEVEL: 'silent' });
  const database = await openDatabase(config);
  try {
    const app = await buildApp(config, { database, logger: pino({ level: 'silent' }) });
    try {
      await app.ready();
      return `${JSON.stringify(app.swagger(), null, 2)}\n`;
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}
