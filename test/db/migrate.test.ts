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
  'claim_history_applied',
  'claim_hours',
  'claim_signatures',
  'claimant_buckets',
  'claimant_changes',
  'claimant_firsts',
  'claims',
  'contracts',
  'entry_shared_version',
  'entry_versions',
  'event_commits',
  'event_retention',
  'events',
  'incentives',
  'indexer_blocks',
  'indexer_checkpoints',
  'indexer_incentives',
  'indexer_writes',
  'known_signatures',
  'projects',
  'token_prices',
  'tokens',
  'users',
  'webhook_attempts',
  'webhook_endpoints',
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

  /** `work` on an empty database of its own (`settings` its defaults), dropped afterwards. */
  const withEmptyDatabase = async (suffix: string, settings: string[], work: (url: string) => Promise<void>) => {
    if (server.kind !== 'postgres') return;
    const name = `campaign_migrate_${suffix}_${process.pid}`;
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.query(`CREATE DATABASE "${name}"`);
      for (const setting of settings) await admin.query(`ALTER DATABASE "${name}" SET ${setting}`);
      await work(withDatabase(server.adminUrl, name));
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  };
  const migrationsApplied = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('SET statement_timeout = 0');
      const { rows } = await client.query<{ table_name: string }>(TABLES_QUERY);
      const applied = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
      return { tables: rows.map((row) => row.table_name), count: applied.rows[0]!.n };
    } finally {
      await client.end();
    }
  };

  it.runIf(server.kind === 'postgres')('apply to an empty PostgreSQL database concurrently and idempotently', async () => {
    await withEmptyDatabase('plain', [], async (url) => {
      // Two replicas starting together: the advisory lock serialises them.
      await Promise.all([migratePostgres(url, 5000), migratePostgres(url, 5000)]);
      await migratePostgres(url, 5000);
      expect(await migrationsApplied(url)).toEqual({ tables: EXPECTED_TABLES, count: journal.entries.length });
    });
  });

  it.runIf(server.kind === 'postgres')("apply where the database's defaults carry a statement timeout shorter than a migration", async () => {
    // docs/operations.md's PgBouncer section has the API's role carry its timeouts; the role that migrates may be the same one.
    // 200 ms: far less than migrating takes (which the second migration waits for), and enough for the
    // message that lifts them, the first of a new server connection, to finish within it on a loaded
    // machine (with 1 ms, PostgreSQL sometimes cancelled that very message while filling its caches).
    await withEmptyDatabase('timeouts', ['statement_timeout = 200', 'idle_in_transaction_session_timeout = 200'], async (url) => {
      await Promise.all([migratePostgres(url, 5000), migratePostgres(url, 5000)]);
      expect(await migrationsApplied(url)).toEqual({ tables: EXPECTED_TABLES, count: journal.entries.length });
    });
  });

  it('fail with a clear message when PostgreSQL cannot be reached', async () => {
    await expect(migratePostgres('postgres://postgres@127.0.0.1:1/none', 1000)).rejects.toThrow(/cannot reach/);
  });
});
