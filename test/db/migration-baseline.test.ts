import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MIGRATIONS_FOLDER, migratePostgres } from '../../src/db/migrate.js';
import { withDatabase } from '../helpers/test-server.js';

/**
 * migrations/ starts with one baseline that replaced the 81 migrations before it, which stay here,
 * in test/db/pre-baseline-migrations/, only to prove that the baseline builds the same database:
 * the same `pg_dump --schema-only` (tables, columns in their order, constraints, indexes, storage,
 * every function and trigger) and the same rows in a fresh database. Runs on real PostgreSQL only:
 * pg_dump reads a server.
 */

const PRE_BASELINE_FOLDER = fileURLToPath(new URL('pre-baseline-migrations', import.meta.url));

interface Journal {
  entries: { idx: number; when: number; tag: string }[];
}
const readJournal = (folder: string) => JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;

const server = inject('testDatabase');

describe.runIf(server.kind === 'postgres')('the migration baseline', () => {
  const names = { before: `campaign_pre_baseline_${process.pid}`, baseline: `campaign_baseline_${process.pid}` };
  const urls = { before: '', baseline: '' };
  let admin: pg.Client;
  let baselineOnly: string;

  const applyFolder = async (url: string, migrationsFolder: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migrate(drizzle({ client }), { migrationsFolder });
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    if (server.kind !== 'postgres') return;
    admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    for (const [key, name] of Object.entries(names) as [keyof typeof names, string][]) {
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.query(`CREATE DATABASE "${name}"`);
      urls[key] = withDatabase(server.adminUrl, name);
    }
    // The baseline alone, without the migrations written after it.
    baselineOnly = mkdtempSync(join(tmpdir(), 'migration-baseline-'));
    cpSync(MIGRATIONS_FOLDER, baselineOnly, { recursive: true });
    const journal = readJournal(baselineOnly);
    writeFileSync(join(baselineOnly, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, 1) }));
    await applyFolder(urls.before, PRE_BASELINE_FOLDER);
    await applyFolder(urls.baseline, baselineOnly);
  }, 120_000);

  afterAll(async () => {
    if (server.kind !== 'postgres') return;
    rmSync(baselineOnly, { recursive: true, force: true });
    for (const name of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  /** pg_dump's text without the random key of its \restrict lines. */
  const dump = (url: string, ...options: string[]) =>
    execFileSync('pg_dump', [...options, '--no-owner', url], { encoding: 'utf8', maxBuffer: 64 << 20 })
      .split('\n')
      .filter((line) => !/^\\(un)?restrict /.test(line))
      .join('\n');

  it('builds the same schema as the migrations before it, functions and triggers included', () => {
    const before = dump(urls.before, '--schema-only');
    const baseline = dump(urls.baseline, '--schema-only');
    expect(before).toContain('CREATE FUNCTION public.claims_after_write()');
    expect(before).toContain('CREATE TRIGGER claims_after_insert');
    expect(baseline).toBe(before);
  });

  it('starts with the same rows', () => {
    // The change feed holds what the earlier migrations' own writes recorded (a reload marker), which
    // no reader of a fresh database sees; every other table, and every sequence, must match.
    const data = (url: string) =>
      dump(url, '--data-only', '--exclude-schema=drizzle', '--exclude-table-data=claim_changes', '--exclude-table-data=claim_change_marks');
    const before = data(urls.before);
    expect(before).toMatch(/COPY public\.campaign_set_version [^\n]*\n1\t0\t0\n/);
    expect(data(urls.baseline)).toBe(before);
  });

  it('counts as applied in a database that ran the migrations before it, which then takes only the later ones', async () => {
    const before = readJournal(PRE_BASELINE_FOLDER).entries;
    const current = readJournal(MIGRATIONS_FOLDER).entries;
    expect(current[0]!.when).toBe(before.at(-1)!.when);
    await migratePostgres(urls.before);
    const client = new pg.Client({ connectionString: urls.before });
    await client.connect();
    try {
      const applied = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
      expect(applied.rows[0]!.n).toBe(before.length + current.length - 1);
    } finally {
      await client.end();
    }
  });
});
