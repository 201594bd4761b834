import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { inject } from 'vitest';
import { openDatabase } from '../../../src/db/client.js';
import { migratePostgres } from '../../../src/db/migrate.js';
import { prepareDemo } from '../../../src/demo.js';
import { withDatabase } from '../../helpers/test-server.js';
import { freePort } from './server-process.js';

/** The PostgreSQL server the run uses, or undefined on a PGlite-only run (black-box tests then skip). */
export function postgresAdminUrl(): string | undefined {
  const server = inject('testDatabase');
  return server.kind === 'postgres' ? server.adminUrl : undefined;
}

export const SKIP_WITHOUT_POSTGRES =
  'black-box tests skipped: they run the built server against PostgreSQL; set TEST_DATABASE_URL (CI does)';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** An empty database of its own on the run's PostgreSQL server. */
export async function createScratchDatabase(adminUrl: string, prefix = 'campaign_blackbox'): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  return {
    name,
    url: withDatabase(adminUrl, name),
    drop: () => withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** Migrates and loads the demo data set (300 campaigns, 5,000 claims); returns the demo bearer token. */
export async function migrateAndSeed(url: string): Promise<string> {
  await migratePostgres(url, 5000);
  const database = await openDatabase({
    DATABASE_URL: url,
    PGLITE_DATA_DIR: 'memory://',
    DB_POOL_MAX: 2,
    DB_STATEMENT_TIMEOUT_MS: 60_000,
    DB_CONNECT_TIMEOUT_MS: 5000,
  });
  try {
    return await prepareDemo(database, pino({ level: 'silent' }));
  } finally {
    await database.close();
  }
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Some public campaign id of the demo data. */
export async function someCampaignId(url: string): Promise<string> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ public_id: string }>('SELECT public_id FROM campaigns ORDER BY key LIMIT 1');
    return rows[0]!.public_id;
  });
}

/**
 * Holds `ACCESS EXCLUSIVE` on a table from the test's own connection, so that the server's query
 * reading it blocks: a slow query on demand, without a test-only route in the product.
 */
export async function lockTable(url: string, table: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
  return {
    release: async () => {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

/** How many of the server's connections (by application_name) wait on a lock right now. */
export async function waitingOnLocks(url: string, applicationName: string): Promise<number> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
      [applicationName],
    );
    return rows[0]!.waiting;
  });
}

export const uniqueApplicationName = () => `campaign-blackbox-${randomBytes(3).toString('hex')}`;

const execFileAsync = promisify(execFile);

/** A PostgreSQL cluster of the test's own (initdb + pg_ctl on a free port), to stop and start at will. */
export interface Cluster {
  url: string;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: connections are terminated, as in a restart. */
  stop(): Promise<void>;
  destroy(): Promise<void>;
}

interface ClusterTools {
  bindir: string;
  /** Prefix that runs a command as the postgres OS user (initdb refuses root). */
  asUser: string[];
  uid?: number;
  gid?: number;
}

/** initdb/pg_ctl and a user to run them as, or the reason why a throwaway cluster is not possible here. */
export function findClusterTools(): ClusterTools | string {
  let bindir: string;
  try {
    bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    return 'pg_config is not on PATH, so initdb and pg_ctl cannot be found';
  }
  if (!existsSync(join(bindir, 'initdb')) || !existsSync(join(bindir, 'pg_ctl'))) return `no initdb/pg_ctl in ${bindir}`;
  if (process.getuid?.() !== 0) return { bindir, asUser: [] };
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    execFileSync('runuser', ['-u', 'postgres', '--', 'true']);
    return { bindir, asUser: ['runuser', '-u', 'postgres', '--'], uid, gid };
  } catch {
    return 'running as root without a postgres OS user (or runuser) to run initdb as';
  }
}

export async function createCluster(tools: ClusterTools): Promise<Cluster> {
  const directory = await mkdtemp(join(tmpdir(), 'campaign-cluster-'));
  if (tools.uid !== undefined && tools.gid !== undefined) await chown(directory, tools.uid, tools.gid);
  const data = join(directory, 'data');
  const port = await freePort();
  // Asynchronous: a test measuring request latencies meanwhile must not have its event loop blocked.
  const run = async (command: string, args: string[]) => {
    const [program, ...prefix] = [...tools.asUser, join(tools.bindir, command)];
    await execFileAsync(program, [...prefix, ...args], { timeout: 60_000 });
  };
  await run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  let running = false;
  const cluster: Cluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: async () => {
      await run('pg_ctl', ['-D', data, '-o', options, '-l', join(directory, 'log'), '-w', '-t', '30', 'start']);
      running = true;
    },
    stop: async () => {
      await run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
      running = false;
    },
    destroy: async () => {
      if (running) await cluster.stop().catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
  return cluster;
}
