import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { openDatabase } from '../src/db/client.js';
import { createApiTokensRepository } from '../src/repositories/api-tokens.repository.js';
import { DEMO_USER_ADDRESS } from '../src/seed/reference.js';

const USAGE = `Usage: npm run soak -- [--duration 60] [--connections 10] [--window 10] [--warmup 15]
                     [--url http://host:port --pid <server pid>] [--token <bearer>] [--max-rss-drift 10]

Drives a mix of all six routes at full speed for --duration seconds and reports errors, p99 per
window (first vs last: the drift) and the server's resident memory (VmRSS, sampled every second;
the drift compares the medians of the first and the last window). The warm-up (JIT, caches, the
first claim-window snapshot) is not measured. Exits 1 on any error (non-2xx answer, connection error, timeout) or an RSS drift over
--max-rss-drift percent.

Without --url it starts the production build (node dist/server.js) itself against
SOAK_DATABASE_URL, else DATABASE_URL: a database migrated and seeded with npm run db:seed (for
example --campaigns 20000 --claims 200000). It issues a bearer token for the demo user there for
the staging routes, and revokes it at the end. With --url, give --pid to sample memory (Linux
/proc) and --token for the staging routes (without one they are left out), and make sure the
server's rate limit allows the load (RATE_LIMIT_MAX).`;

interface Options {
  durationS: number;
  connections: number;
  windowS: number;
  warmupS: number;
  maxRssDriftPercent: number;
  url?: string;
  pid?: number;
  token?: string;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '60' },
      connections: { type: 'string', default: '10' },
      window: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '15' },
      'max-rss-drift': { type: 'string', default: '10' },
      url: { type: 'string' },
      pid: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const positive = (name: string, raw: string) => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number (got ${raw})`);
    return value;
  };
  return {
    durationS: positive('duration', values.duration),
    connections: positive('connections', values.connections),
    windowS: positive('window', values.window),
    warmupS: Number(values.warmup),
    maxRssDriftPercent: positive('max-rss-drift', values['max-rss-drift']),
    url: values.url,
    pid: values.pid === undefined ? undefined : positive('pid', values.pid),
    token: values.token,
  };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** The production build on a free port, with a rate limit the load cannot hit. */
async function startServer(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      MIGRATE_ON_START: 'false',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      RATE_LIMIT_MAX: '1000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The server's log lines (warnings and errors only), shown if it dies.
  let logTail = '';
  const keep = (chunk: Buffer) => {
    logTail = (logTail + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.once('exit', (code, signal) => {
    if (code !== 0) console.error(`the server exited (code ${code}, signal ${signal}); its last output:\n${logTail}`);
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} during start-up`);
    const ready = await fetch(`${url}/health/ready`).catch(() => undefined);
    if (ready?.status === 200) return { url, child };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server was not ready within 20 s');
}

async function issueToken(databaseUrl: string): Promise<{ token: string; revoke: () => Promise<void> }> {
  const database = await openDatabase({
    DATABASE_URL: databaseUrl,
    PGLITE_DATA_DIR: 'memory://',
    DB_POOL_MAX: 1,
    DB_STATEMENT_TIMEOUT_MS: 10_000,
    DB_CONNECT_TIMEOUT_MS: 5000,
  });
  const tokens = createApiTokensRepository(database.db);
  const userId = await tokens.findUserIdByAddress(DEMO_USER_ADDRESS);
  if (!userId) {
    await database.close();
    throw new Error(`no demo user ${DEMO_USER_ADDRESS} in the database: seed it with npm run db:seed`);
  }
  const { id, token } = await tokens.createToken(userId, 'soak');
  return {
    token,
    revoke: async () => {
      await tokens.revokeToken(id);
      await database.close();
    },
  };
}

/** The request mix: every route, with the parameters frontends send, over real campaign ids. */
async function buildMix(baseUrl: string, token: string | undefined): Promise<{ path: string; auth: boolean }[]> {
  const response = await fetch(`${baseUrl}/campaigns?pageSize=100&tokenWhitelist=false`);
  if (response.status !== 200) throw new Error(`GET /campaigns answered ${response.status}`);
  const { campaigns } = (await response.json()) as { campaigns: { id: string; owner: string }[] };
  if (campaigns.length === 0) throw new Error('the database holds no campaigns: seed it with npm run db:seed');
  const pick = <T>(items: T[], index: number) => items[index % items.length]!;
  const mix: { path: string; auth: boolean }[] = [];
  for (let i = 0; i < 20; i++) {
    const campaign = pick(campaigns, i * 7);
    mix.push(
      { path: '/campaigns', auth: false },
      { path: `/campaigns?page=${1 + (i % 5)}&pageSize=20&sortBy=${i % 2 ? 'active' : 'recently-deployed'}`, auth: false },
      { path: `/campaigns?owner=${campaign.owner}&tokenWhitelist=false`, auth: false },
      { path: `/campaigns/${encodeURIComponent(campaign.id)}`, auth: false },
      { path: `/campaigns/${encodeURIComponent(pick(campaigns, i * 13 + 1).id)}`, auth: false },
      { path: `/reward-kit/trending?sortBy=${i % 2 ? '1h' : '24h'}&page=${1 + (i % 3)}`, auth: false },
      { path: `/explore/contracts?sortBy=${pick(['most-completions', 'total-spend', 'recently-deployed'], i)}&timePeriod=${pick(['6h', '24h', '7d'], i)}`, auth: false },
    );
    if (token) mix.push({ path: '/campaigns/accesslists', auth: true }, { path: '/users/profile', auth: true });
  }
  return mix;
}

async function rssKb(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const match = status && /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return match ? Number(match[1]) : undefined;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Window {
  latencies: number[];
  errors: number;
  /** VmRSS samples (kB), one a second. */
  rss: number[];
}

const median = (values: number[]) => (values.length === 0 ? Number.NaN : percentile([...values].sort((a, b) => a - b), 50));

async function main(): Promise<void> {
  const options = parseOptions();
  const databaseUrl = process.env.SOAK_DATABASE_URL ?? process.env.DATABASE_URL;
  let server: { url: string; child: ChildProcess } | undefined;
  let issued: { token: string; revoke: () => Promise<void> } | undefined;
  let exitCode = 0;
  try {
    if (!options.url) {
      if (!databaseUrl) throw new Error('give --url of a running server, or SOAK_DATABASE_URL / DATABASE_URL of a seeded database');
      issued = await issueToken(databaseUrl);
      server = await startServer(databaseUrl);
    }
    const baseUrl = options.url ?? server!.url;
    const pid = options.pid ?? server?.child.pid;
    const token = options.token ?? issued?.token;
    if (!token) console.warn('no --token: the staging routes are left out of the mix');
    const mix = await buildMix(baseUrl, token);
    const authHeaders = token ? { authorization: `Bearer ${token}` } : {};

    const rssBefore = pid === undefined ? undefined : await rssKb(pid);
    const drive = (seconds: number, onResponse?: (status: number, ms: number) => void, onError?: () => void) =>
      new Promise<autocannon.Result>((resolve, reject) => {
        let next = 0;
        const instance = autocannon(
          {
            url: baseUrl,
            connections: options.connections,
            duration: seconds,
            requests: [
              {
                method: 'GET',
                setupRequest: (request) => {
                  const entry = mix[next++ % mix.length]!;
                  return { ...request, path: entry.path, headers: entry.auth ? { ...request.headers, ...authHeaders } : request.headers };
                },
              },
            ],
          },
          (error, result) => (error ? reject(error as Error) : resolve(result)),
        );
        if (onResponse) instance.on('response', (_client, status, _bytes, ms) => onResponse(status, ms));
        if (onError) instance.on('reqError', onError);
      });

    if (options.warmupS > 0) {
      console.log(`warming up for ${options.warmupS} s`);
      await drive(options.warmupS);
    }
    const rssStart = pid === undefined ? undefined : await rssKb(pid);

    console.log(`soak: ${options.durationS} s, ${options.connections} connections, ${mix.length} request kinds over all routes, against ${baseUrl}`);
    const windows: Window[] = [];
    const statuses = new Map<number, number>();
    const rssSamples: number[] = [];
    const started = Date.now();
    const windowAt = () => {
      const index = Math.floor((Date.now() - started) / (options.windowS * 1000));
      while (windows.length <= index) windows.push({ latencies: [], errors: 0, rss: [] });
      return windows[index]!;
    };
    const sampler = setInterval(() => {
      if (pid !== undefined) {
        void rssKb(pid).then((kb) => {
          if (kb === undefined) return;
          rssSamples.push(kb);
          windowAt().rss.push(kb);
        });
      }
    }, 1000);
    const result = await drive(
      options.durationS,
      (status, ms) => {
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        const window = windowAt();
        window.latencies.push(ms);
        if (status < 200 || status > 299) window.errors++;
      },
      () => {
        windowAt().errors++;
      },
    );
    clearInterval(sampler);
    const rssEnd = pid === undefined ? undefined : await rssKb(pid);

    // A last window shorter than half a window says little about p99: fold it into the one before.
    const full = windows.filter((window) => window.latencies.length > 0);
    const seconds = (Date.now() - started) / 1000;
    if (full.length > 1 && seconds % options.windowS < options.windowS / 2) {
      const last = full.pop()!;
      full[full.length - 1]!.latencies.push(...last.latencies);
      full[full.length - 1]!.errors += last.errors;
      full[full.length - 1]!.rss.push(...last.rss);
    }
    const p99s = full.map((window) => percentile([...window.latencies].sort((a, b) => a - b), 99));
    const non2xx = [...statuses].filter(([status]) => status < 200 || status > 299).reduce((sum, [, count]) => sum + count, 0);
    const errors = non2xx + result.errors + result.timeouts;
    const total = [...statuses.values()].reduce((sum, count) => sum + count, 0);

    console.log('\nwindow  requests  errors  p99 ms  RSS MB (median)');
    full.forEach((window, index) =>
      console.log(
        `${String(index + 1).padStart(6)}  ${String(window.latencies.length).padStart(8)}  ${String(window.errors).padStart(6)}  ` +
          `${p99s[index]!.toFixed(1).padStart(6)}  ${(median(window.rss) / 1024).toFixed(1).padStart(15)}`,
      ),
    );
    const first = p99s[0]!;
    const last = p99s[p99s.length - 1]!;
    console.log(`\nrequests: ${total} (${Math.round(total / options.durationS)}/s); statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    console.log(`errors: ${errors} (non-2xx ${non2xx}, connection errors ${result.errors}, timeouts ${result.timeouts})`);
    console.log(`p99: first window ${first.toFixed(1)} ms, last window ${last.toFixed(1)} ms, drift ${formatPercent((last - first) / first)}`);
    // Start vs end as the median of the first and the last window's samples: a single reading
    // lands anywhere in a garbage collection cycle and says more about GC timing than about drift.
    const rssFirst = median(full[0]?.rss ?? []);
    const rssLast = median(full[full.length - 1]?.rss ?? []);
    if (rssStart !== undefined && rssEnd !== undefined && Number.isFinite(rssFirst) && Number.isFinite(rssLast)) {
      const drift = (rssLast - rssFirst) / rssFirst;
      console.log(
        `RSS: ${mb(rssBefore)} before warm-up, ${mb(rssStart)} after it, ${mb(rssEnd)} at the end (peak ${mb(Math.max(...rssSamples, rssEnd))}); ` +
          `median first window ${mb(rssFirst)}, last window ${mb(rssLast)}: drift ${formatPercent(drift)} (limit ${options.maxRssDriftPercent}%)`,
      );
      if (drift * 100 > options.maxRssDriftPercent) exitCode = 1;
    } else {
      console.log('RSS: not sampled (give --pid of the server, on Linux)');
    }
    if (errors > 0) exitCode = 1;
  } finally {
    if (server) {
      const exited = server.child.exitCode !== null || server.child.signalCode !== null;
      const code = exited ? server.child.exitCode : ((await (server.child.kill('SIGTERM'), once(server.child, 'exit'))) as [number | null])[0];
      if (code !== 0) {
        console.error(`the server exited with ${code} after SIGTERM`);
        exitCode = 1;
      }
    }
    await issued?.revoke();
  }
  console.log(exitCode === 0 ? '\nsoak: OK' : '\nsoak: FAILED');
  process.exitCode = exitCode;
}

const mb = (kb: number | undefined) => (kb === undefined ? '?' : `${(kb / 1024).toFixed(1)} MB`);
const formatPercent = (ratio: number) => `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`;

main().catch((error: unknown) => {
  console.error(`soak failed: ${(error as Error).message}`);
  process.exitCode = 1;
});
