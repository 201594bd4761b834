/**
 * The capacity model's measurements (README "Capacity model"), all in one run on one machine:
 *
 * 1. per route: requests per second and, per request, Node CPU and PostgreSQL CPU, for three ways
 *    of connecting: direct with named prepared statements (DB_POOL_MODE=session), direct without
 *    them (DB_POOL_MODE=transaction: what giving up named statements costs by itself), and through
 *    PgBouncer in transaction mode (--pgbouncer);
 * 2. PostgreSQL CPU per second at idle with 1, 2 and 4 replicas: the backends serving the bench
 *    database, and the whole server (every `postgres` process: background workers too), which is
 *    "the database's idle CPU" (`--idle-only` measures only this);
 * 3. server connections and resident memory per replica.
 *
 *   npm run bench:scale-out -- --database postgres://postgres@127.0.0.1:5432/campaigns_bench_100000 \
 *     --pgbouncer postgres://postgres@127.0.0.1:6432/campaigns_bench_100000 [--seconds 8] [--idle-seconds 30] [--rounds 3]
 *
 * The database must be seeded (npm run bench seeds one) and migrated; PgBouncer must run in
 * transaction mode with `admin_users` including the URL's user (the README's pgbouncer.ini). The
 * run makes the API's two timeouts the bench database's defaults, as the README's PgBouncer section
 * advises (`ALTER DATABASE ... SET`; PgBouncer reconnects to pick them up), so that transactions
 * set nothing; `--timeouts-per-transaction` leaves the defaults alone, to measure the other way.
 * CPU is read from /proc: the server's process, and the PostgreSQL backends serving the bench
 * database (pg_stat_activity), so other databases' work on a shared server is not counted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { sampleParameters } from './dataset.js';
import { IMAGE_ENVIRONMENT } from './image-environment.js';
import { drive } from './load.js';
import { freePort } from './processes.js';
import type { Scenario } from './scenarios.js';

const { values: options } = parseArgs({
  options: {
    database: { type: 'string' },
    pgbouncer: { type: 'string' },
    seconds: { type: 'string', default: '8' },
    'idle-seconds': { type: 'string', default: '30' },
    connections: { type: 'string', default: '10' },
    only: { type: 'string' },
    'idle-only': { type: 'boolean', default: false },
    'timeouts-per-transaction': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
  },
});
if (!options.database) throw new Error('--database postgres://... (a seeded, migrated benchmark database) is required');
const DATABASE = options.database;
const SECONDS = Number(options.seconds);
const IDLE_SECONDS = Number(options['idle-seconds']);
const CONNECTIONS = Number(options.connections);
const ROUNDS = Math.max(1, Number(options.rounds));
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Mode {
  name: string;
  env: Record<string, string>;
}
// In transaction mode as the README deploys it: MIGRATE_DATABASE_URL names the direct connection, on
// which each replica listens for claim changes and reads the claim feed (one session per replica).
const MODES: Mode[] = [
  { name: 'direct, named statements', env: { DATABASE_URL: DATABASE, DB_POOL_MODE: 'session' } },
  { name: 'direct, unnamed (transaction mode)', env: { DATABASE_URL: DATABASE, DB_POOL_MODE: 'transaction', MIGRATE_DATABASE_URL: DATABASE } },
  ...(options.pgbouncer
    ? [{ name: 'PgBouncer transaction mode', env: { DATABASE_URL: options.pgbouncer, DB_POOL_MODE: 'transaction', MIGRATE_DATABASE_URL: DATABASE } }]
    : []),
];

/** The soak's default mix (scripts/soak.ts), by route: per 9 requests, 3 list pages, 2 details, one of each other route. */
function routes(parameters: Awaited<ReturnType<typeof sampleParameters>>): (Scenario & { mixShare: number })[] {
  let next = 0;
  const auth = { authorization: `Bearer ${parameters.bearerToken}` };
  const fixed = (name: string, path: string, mixShare: number, headers?: Record<string, string>) => ({ name, path: () => path, mixShare, headers });
  return [
    fixed('list default', '/campaigns', 1 / 9),
    fixed('list page 3, 20 a page', '/campaigns?page=3&pageSize=20&sortBy=active', 1 / 9),
    fixed('list by owner', `/campaigns?owner=${parameters.owner}&tokenWhitelist=false`, 1 / 9),
    { name: 'detail by random id', path: () => `/campaigns/${parameters.campaignIds[next++ % parameters.campaignIds.length]}`, mixShare: 2 / 9 },
    fixed('trending 24h', '/reward-kit/trending?sortBy=24h', 1 / 9),
    fixed('contracts most-completions', '/explore/contracts?sortBy=most-completions&timePeriod=24h', 1 / 9),
    fixed('access lists', '/campaigns/accesslists', 1 / 9, auth),
    fixed('profile', '/users/profile', 1 / 9, auth),
  ];
}

async function main(): Promise<void> {
  const parameters = await sampleParameters(DATABASE);
  const scenarios = routes(parameters).filter((scenario) => !options.only || scenario.name.includes(options.only));
  const results: Record<string, unknown> = { at: new Date().toISOString(), database: DATABASE.replace(/:[^:@/]*@/, '@'), seconds: SECONDS };

  // The servers start with MIGRATE_ON_START=false (three at once, one through PgBouncer): migrate once first,
  // so that a database seeded by an older build gets the SQL functions this build calls.
  await migrate();
  if (!options['timeouts-per-transaction']) await makeTimeoutsTheDefaults();

  // 1. Throughput and CPU per request, the three modes side by side for each route.
  const servers = [];
  for (const mode of options['idle-only'] ? [] : MODES) servers.push({ mode, server: await startServer({ ...mode.env, DB_APPLICATION_NAME: `bench-${servers.length}` }) });
  const rows = [];
  const peakConnections = new Map<string, number>();
  const peakRss = new Map<string, number>();
  try {
    for (const scenario of scenarios) {
      for (const { server } of servers) await drive(server.url, scenario, { connections: CONNECTIONS, durationSeconds: 2 }); // warm-up
      // The modes in turn, ROUNDS times, each round starting with the next mode: this machine's
      // throughput drifts by 10-40% over minutes, so each mode's ratio to direct is taken per round
      // (the two measured a few seconds apart) and the median of the rounds reported.
      for (let pass = 0; pass < ROUNDS; pass++) {
        for (let turn = 0; turn < servers.length; turn++) {
          const { mode, server } = servers[(pass + turn) % servers.length]!;
          const before = await cpuSnapshot(server.pid);
          const load = await drive(server.url, scenario, { connections: CONNECTIONS, durationSeconds: SECONDS });
          const after = await cpuSnapshot(server.pid);
          peakConnections.set(mode.name, Math.max(peakConnections.get(mode.name) ?? 0, await openConnections(mode, server)));
          peakRss.set(mode.name, Math.max(peakRss.get(mode.name) ?? 0, await rssMb(server.pid)));
          const requests = load.requestsPerSecond * SECONDS;
          const row = {
            route: scenario.name,
            mode: mode.name,
            round: pass,
            requestsPerSecond: load.requestsPerSecond,
            p99Ms: load.p99Ms,
            errors: load.errors + load.non2xx,
            nodeCpuMsPerRequest: round((after.nodeMs - before.nodeMs) / requests, 3),
            postgresCpuMsPerRequest: round(postgresMs(before, after) / requests, 3),
            mixShare: scenario.mixShare,
          };
          rows.push(row);
          log(JSON.stringify(row));
        }
      }
    }
    results.routes = rows;
    // 3. Connections and memory per replica, at their highest right after a load.
    const connections = servers.map(({ mode }) => ({
      mode: mode.name,
      peakRssMb: peakRss.get(mode.name),
      serverConnections: peakConnections.get(mode.name),
      counted: mode.name.startsWith('PgBouncer') ? "PgBouncer's server connections for the database, shared by every replica" : "the replica's own PostgreSQL connections",
    }));
    results.perReplica = connections;
    log(JSON.stringify(connections));
  } finally {
    for (const { server } of servers) await server.stop();
  }

  // 2. Idle: what N replicas cost the database when nobody asks them anything.
  const idle = [];
  for (const replicas of [1, 2, 4]) {
    const started = [];
    for (let i = 0; i < replicas; i++) started.push(await startServer({ DATABASE_URL: DATABASE, DB_APPLICATION_NAME: 'bench-idle' }));
    try {
      await sleep(5000);
      const before = await cpuSnapshot(started[0]!.pid);
      await sleep(IDLE_SECONDS * 1000);
      const after = await cpuSnapshot(started[0]!.pid);
      const row = {
        replicas,
        postgresCpuMsPerSecond: round(postgresMs(before, after) / IDLE_SECONDS, 3),
        postgresServerCpuMsPerSecond: round(serverMs(before, after) / IDLE_SECONDS, 3),
      };
      idle.push(row);
      log(JSON.stringify(row));
    } finally {
      for (const server of started) await server.stop();
    }
  }
  results.idle = idle;

  await mkdir('bench/results', { recursive: true });
  const file = `bench/results/scale-out-${Date.now()}.json`;
  await writeFile(file, JSON.stringify(results, null, 2));
  printMarkdown(rows, idle, results.perReplica as object[]);
  log(`results: ${file}`);
}

interface RouteRow {
  route: string;
  mode: string;
  round: number;
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
  nodeCpuMsPerRequest: number;
  postgresCpuMsPerRequest: number;
}

/** Per route and mode, over the rounds: median req/s, highest p99, all errors, mean CPU, and the median of the per-round ratios to direct. */
function printMarkdown(rows: RouteRow[], idle: object[], perReplica: object[]): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  out(`| route | mode | req/s (median of ${ROUNDS}) | p99 ms | errors | Node CPU ms/req | PostgreSQL CPU ms/req | x direct named (per round) | x direct named (median) |`);
  out('|---|---|---|---|---|---|---|---|---|');
  for (const route of [...new Set(rows.map((row) => row.route))]) {
    for (const mode of MODES) {
      const own = rows.filter((row) => row.route === route && row.mode === mode.name);
      if (own.length === 0) continue;
      const ratios = own.map((row) => {
        const base = rows.find((other) => other.route === route && other.mode === MODES[0]!.name && other.round === row.round)!;
        return round(row.requestsPerSecond / base.requestsPerSecond, 2);
      });
      out(
        `| ${route} | ${mode.name} | ${Math.round(median(own.map((row) => row.requestsPerSecond)))} | ${Math.max(...own.map((row) => row.p99Ms))} | ` +
          `${own.reduce((sum, row) => sum + row.errors, 0)} | ${round(mean(own.map((row) => row.nodeCpuMsPerRequest)), 3)} | ` +
          `${round(mean(own.map((row) => row.postgresCpuMsPerRequest)), 3)} | ${ratios.join(' / ')} | ${round(median(ratios), 2)} |`,
      );
    }
  }
  out('');
  out(`idle: ${JSON.stringify(idle)}`);
  out(`per replica: ${JSON.stringify(perReplica)}`);
}

interface CpuSnapshot {
  nodeMs: number;
  /** CPU ms of each backend serving the bench database, by pid. */
  backends: Map<number, number>;
  /** CPU ms of every `postgres` process of the machine, by pid. */
  server: Map<number, number>;
}

async function cpuSnapshot(nodePid: number): Promise<CpuSnapshot> {
  const database = new URL(DATABASE).pathname.slice(1);
  const client = new pg.Client({ connectionString: DATABASE, application_name: 'bench-observer' });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      [database],
    );
    const backends = new Map<number, number>();
    for (const { pid } of rows) backends.set(pid, await processCpuMs(pid));
    return { nodeMs: await processCpuMs(nodePid), backends, server: await postgresProcessesCpuMs() };
  } finally {
    await client.end();
  }
}

/** CPU used by the backends between two snapshots; a backend born in between counts from zero. */
function postgresMs(before: CpuSnapshot, after: CpuSnapshot): number {
  let ms = 0;
  for (const [pid, value] of after.backends) ms += value - (before.backends.get(pid) ?? 0);
  return ms;
}

/** CPU used by every PostgreSQL process between two snapshots; a process born in between counts from zero. */
function serverMs(before: CpuSnapshot, after: CpuSnapshot): number {
  let ms = 0;
  for (const [pid, value] of after.server) ms += value - (before.server.get(pid) ?? 0);
  return ms;
}

async function postgresProcessesCpuMs(): Promise<Map<number, number>> {
  const result = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (comm.trim() === 'postgres') result.set(Number(entry), await processCpuMs(Number(entry)));
  }
  return result;
}

/** CPU time a process has used, in ms: /proc/<pid>/schedstat counts nanoseconds (stat's ticks are 10 ms, too coarse for idle polls). */
async function processCpuMs(pid: number): Promise<number> {
  const schedstat = await readFile(`/proc/${pid}/schedstat`, 'utf8').catch(() => '0');
  return Number(schedstat.split(' ')[0]) / 1e6;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Server connections the replica holds: its own on PostgreSQL, or PgBouncer's for the database when it goes through one. */
async function openConnections(mode: Mode, server: { applicationName: string }): Promise<number> {
  if (mode.name.startsWith('PgBouncer')) {
    const admin = new URL(options.pgbouncer!);
    const database = admin.pathname.slice(1);
    admin.pathname = '/pgbouncer';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      // The admin console speaks the simple protocol only.
      const { rows } = await client.query<{ database: string; sv_active: string; sv_idle: string; sv_used: string }>({ text: 'SHOW POOLS', queryMode: 'simple' } as pg.QueryConfig);
      const pool = rows.find((row) => row.database === database);
      return pool ? Number(pool.sv_active) + Number(pool.sv_idle) + Number(pool.sv_used) : 0;
    } finally {
      await client.end();
    }
  }
  const client = new pg.Client({ connectionString: DATABASE });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [server.applicationName]);
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

/**
 * The servers' timeouts (their defaults, or DB_STATEMENT_TIMEOUT_MS and
 * DB_IDLE_IN_TRANSACTION_TIMEOUT_MS from the environment) as the database's own, and PgBouncer's
 * server connections opened again so that they start with them.
 */
async function makeTimeoutsTheDefaults(): Promise<void> {
  const config = loadConfig({ ...process.env, DATABASE_URL: DATABASE });
  const database = new URL(DATABASE).pathname.slice(1);
  const client = new pg.Client({ connectionString: DATABASE });
  await client.connect();
  try {
    const name = client.escapeIdentifier(database);
    await client.query(`ALTER DATABASE ${name} SET statement_timeout = ${Math.trunc(config.DB_STATEMENT_TIMEOUT_MS)}`);
    await client.query(`ALTER DATABASE ${name} SET idle_in_transaction_session_timeout = ${Math.trunc(config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS)}`);
  } finally {
    await client.end();
  }
  if (!options.pgbouncer) return;
  const admin = new URL(options.pgbouncer);
  admin.pathname = '/pgbouncer';
  const bouncer = new pg.Client({ connectionString: admin.toString() });
  await bouncer.connect();
  try {
    await bouncer.query({ text: `RECONNECT ${new URL(options.pgbouncer).pathname.slice(1)}`, queryMode: 'simple' } as pg.QueryConfig);
  } finally {
    await bouncer.end();
  }
}

interface BenchServer {
  url: string;
  pid: number;
  applicationName: string;
  stop(): Promise<void>;
}

async function migrate(): Promise<void> {
  const child = spawn(process.execPath, ['dist/cli/migrate.js'], {
    env: { ...process.env, DATABASE_URL: DATABASE, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`migrating ${DATABASE.replace(/:[^:@/]*@/, '@')} failed (exit code ${code})`);
}

async function startServer(env: Record<string, string>): Promise<BenchServer> {
  const port = await freePort();
  const applicationName = env.DB_APPLICATION_NAME ?? 'campaign-service';
  const child: ChildProcess = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...IMAGE_ENVIRONMENT,
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      MIGRATE_ON_START: 'false',
      RATE_LIMIT_MAX: '0',
      RESPONSE_CACHE_TTL_MS: '0',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (await fetch(`${url}/health/ready`).then((response) => response.ok, () => false)) break;
    if (attempt > 600) throw new Error('the server did not become ready within 2 minutes');
    await sleep(200);
  }
  return {
    url,
    pid: child.pid!,
    applicationName,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

await main();
