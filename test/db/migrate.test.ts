import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { MIGRATIONS_FOLDER, migratePglite, migratePostgres } from '../../src/db/migrate.js';
import { withDatabase } from '../helpers/test-server.js';

const EXPECTED_TABLES = [
  'access_list_members',
  'access_lists',
  'action_steps',
  'action_templates',
  'allow_list_addresses',
  'allow_lists',
  'api_tokens',
  'budget_account_members',
  'budget_accounts',
  'campaign_documents',
  'campaign_live',
  'campaign_set_version',
  'campaigns',
  'claim_change_marks',
  'claim_changes',
  'claim_signatures',
  'claims',
  'contracts',
  'incentives',
  'indexer_blocks',
  'indexer_checkpoints',
  'indexer_incentives',
  'indexer_writes',
  'known_signatures',
  'projects',
  'tokens',
  'users',
];

const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };

const TABLES_QUERY = `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`;

describe('migrations', () => {
  it('create every table on an empty embedded database, and a second run changes nothing', async () => {
    const client = new PGlite();
    try {
      await migratePglite(client);
      await migratePglite(client);
      const { rows } = await client.query<{ table_name: string }>(TABLES_QUERY);
      expect(rows.map((row) => row.table_name)).toEqual(EXPECTED_TABLES);
    } finally {
      await client.close();
    }
  });

  const server = inject('testDatabase');
  it.runIf(server.kind === 'postgres')('apply to an empty PostgreSQL database concurrently and idempotently', async () => {
    if (server.kind !== 'postgres') return;
    const name = `campaign_migrate_${process.pid}`;
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = withDatabase(server.adminUrl, name);
    try {
      // Two replicas starting together: the advisory lock serialises them.
      await Promise.all([migratePostgres(url, 5000), migratePostgres(url, 5000)]);
      await migratePostgres(url, 5000);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ table_name: string }>(TABLES_QUERY);
      const applied = await client.query('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
      await client.end();
      expect(rows.map((row) => row.table_name)).toEqual(EXPECTED_TABLES);
      expect(applied.rows[0]).toEqual({ n: journal.entries.length });
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });

  it.runIf(server.kind === 'postgres')("apply where the database's defaults carry a statement timeout shorter than a migration", async () => {
    if (server.kind !== 'postgres') return;
    // The README's PgBouncer section has the API's role carry its timeouts; the role that migrates may be the same one.
    const name = `campaign_migrate_timeouts_${process.pid}`;
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.query(`ALTER DATABASE "${name}" SET statement_timeout = 1`);
    await admin.query(`ALTER DATABASE "${name}" SET idle_in_transaction_session_timeout = 1`);
    const url = withDatabase(server.adminUrl, name);
    try {
      await Promise.all([migratePostgres(url, 5000), migratePostgres(url, 5000)]);
      const client = new pg.Client({ connectionString: url, statement_timeout: 0 });
      await client.connect();
      const applied = await client.query('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
      await client.end();
      expect(applied.rows[0]).toEqual({ n: journal.entries.length });
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });

  it('fail with a clear message when PostgreSQL cannot be reached', async () => {
    await expect(migratePostgres('postgres://postgres@127.0.0.1:1/none', 1000)).rejects.toThrow(/cannot reach/);
  });
});
