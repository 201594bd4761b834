import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Keep this much of the server's output for failure messages. */
const LOG_TAIL_CHARS = 20_000;
/**
 * How long a spawned server may take to answer /health/live. The embedded database runs initdb in
 * WebAssembly on every in-memory start, all on the CPU: a few seconds on an idle machine, and
 * several times that while the test run's other workers hold both cores.
 */
export const START_WITHIN_MS = 60_000;

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  /** The last LOG_TAIL_CHARS of stdout and stderr. */
  logs(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * Starts the production build, `node dist/server.js`, with only the given environment (plus
 * PATH and HOME: nothing of the test runner's leaks in), on a free port, and waits until
 * /health/live answers. Quiet defaults for the black-box tests: no rate limit in the way, no
 * response cache that could answer without the database.
 */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['dist/server.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '1000000',
      RESPONSE_CACHE_TTL_MS: '0',
      SHUTDOWN_GRACE_MS: '10000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_WITHIN_MS;
  for (;;) {
    if (hasExited) throw new Error(`the server exited during start-up:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not answer /health/live within ${START_WITHIN_MS} ms:\n${output}`);
    }
    const live = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
    if (live?.status === 200) break;
    await sleep(100);
  }

  return {
    url,
    port,
    pid: child.pid!,
    logs: () => output,
    exited,
    stop: async (graceMs = 10_000) => {
      if (hasExited) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** One request to each of the six operations, as [path, headers]: the staging ones with `token`. */
export function everyOperation(campaignId: string, token: string): [string, Record<string, string>][] {
  const auth = { authorization: `Bearer ${token}` };
  return [
    ['/campaigns', {}],
    [`/campaigns/${campaignId}`, {}],
    ['/reward-kit/trending', {}],
    ['/explore/contracts', {}],
    ['/campaigns/accesslists', auth],
    ['/users/profile', auth],
  ];
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Answer {
  status: number;
  headers: Headers;
  body: string;
  ms: number;
}

/** GET with a hard client-side limit: a request that would hang fails the test instead of the run. */
export async function get(url: string, headers: Record<string, string> = {}, limitMs = 15_000): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(limitMs) });
  const body = await response.text();
  return { status: response.status, headers: response.headers, body, ms: performance.now() - started };
}

/** Polls `probe` until it returns true or `limitMs` passes; returns whether it did. */
/**
 * Waits until the server answers readiness (migrated, claim volumes loaded): what a load balancer
 * waits for. A test that locks tables afterwards then holds up only its own requests.
 */
export async function becameReady(server: ServerProcess, limitMs = 10_000): Promise<boolean> {
  return eventually(async () => (await get(`${server.url}/health/ready`)).status === 200, limitMs);
}

export async function eventually(probe: () => Promise<boolean>, limitMs: number, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return true;
    await sleep(everyMs);
  }
  return false;
}
