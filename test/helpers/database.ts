import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { wrapPglite } from '../../src/db/pglite.js';
import { withDatabase } from './test-server.js';


export interface TestDatabase extends DatabaseHandle {
  /** Connection string of this file's database (PostgreSQL only), for black-box tests. */
  url?: string;
}

/**
 * A fresh, migrated, empty database of its own, cloned from the template global-setup made.
 * `close()` drops it.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = inject('testDatabase');
  if (server.kind === 'pglite') {
    const dump = new Blob([await readFile(server.dumpPath)]);
    const client = await PGlite.create({
      loadDataDir: dump,
      parsers: { [pgliteTypes.INT8]: (value: string) => value },
    });
    return wrapPglite(client, 'PGlite test database');
  }

  const name = `${server.templateName.replace('template', 'file')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${server.templateName}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(server.adminUrl, name);
  const handle = await openDatabase({
    DATABASE_URL: url,
    PGLITE_DATA_DIR: 'memory://',
    DB_POOL_MAX: 4,
    DB_STATEMENT_TIMEOUT_MS: 30_000,
    DB_CONNECT_TIMEOUT_MS: 5_000,
  });
  return {
    ...handle,
    url,
    close: async () => {
      await handle.close();
      const dropper = new pg.Client({ connectionString: server.adminUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await dropper.end();
    },
  };
}
