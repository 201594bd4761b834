import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, createCluster, findClusterTools, migrateAndSeed, postgresAdminUrl, SKIP_WITHOUT_POSTGRES, withClient } from './helpers/postgres.js';
import { eventually, everyOperation, get, type ServerProcess, sleep, startServer } from './helpers/server-process.js';

/**
 * The built server against a PostgreSQL cluster of the test's own (initdb + pg_ctl on a free port):
 * down when the server starts, then stopped and started again under load. Nothing may hang, every
 * failure must be a fast 503 with Retry-After, and the service must come back by itself.
 */
const tools = findClusterTools();
const skipReason = !postgresAdminUrl() ? SKIP_WITHOUT_POSTGRES : typeof tools === 'string' ? `database restart tests skipped: ${tools}` : undefined;
if (skipReason) console.warn(skipReason);

const CONNECT_TIMEOUT_MS = 1000;
/** Generous: the machine is shared with the rest of the suite. */
const SLACK_MS = 2500;

interface Outcome {
  path: string;
  startedAt: number;
  endedAt: number;
  status: number;
  retryAfter: string | null;
  body: string;
}

describe.skipIf(skipReason !== undefined)('black box: the database goes away and comes back', () => {
  let cluster: Cluster;
  let server: ServerProcess;

  beforeAll(async () => {
    cluster = await createCluster(tools as Exclude<typeof tools, string>);
  });
  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
  });

  it('down at start: the server starts, readiness and the API answer 503, and it recovers without a restart', async () => {
    server = await startServer({
      DATABASE_URL: cluster.url,
      MIGRATE_ON_START: 'true',
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DB_POOL_ACQUIRE_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DB_POOL_MAX: '4',
    });
    const ready = await get(`${server.url}/health/ready`);
    expect(ready.status).toBe(503);
    const api = await get(`${server.url}/campaigns`);
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Object.keys(JSON.parse(api.body) as object)).toEqual(['error']);
    expect(api.ms).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);

    await cluster.start();
    const back = Date.now();
    expect(await eventually(async () => (await get(`${server.url}/health/ready`)).status === 200, 10_000)).toBe(true);
    const campaigns = await get(`${server.url}/campaigns`);
    expect(campaigns.status).toBe(200);
    console.info(`database down at start: ready ${Date.now() - back} ms after the database came up (migrations included)`);
  });

  it('restarted under load: fast 503s with Retry-After while it is down, no hung request, 200s within 2 s of its return', async () => {
    const token = await migrateAndSeed(cluster.url);
    const campaignId = await withClient(cluster.url, async (client) => {
      const { rows } = await client.query<{ public_id: string }>('SELECT public_id FROM campaigns ORDER BY key LIMIT 1');
      return rows[0]!.public_id;
    });
    const routes = everyOperation(campaignId, token);

    const outcomes: Outcome[] = [];
    let loading = true;
    const worker = async (offset: number) => {
      for (let i = offset; loading; i++) {
        const [path, headers] = routes[i % routes.length]!;
        const startedAt = Date.now();
        // A hung request fails here (AbortSignal), and the assertions below see it.
        const answer = await get(server.url + path, headers, 10_000).catch((error: Error) => ({
          status: -1,
          headers: new Headers(),
          body: error.message,
        }));
        outcomes.push({ path, startedAt, endedAt: Date.now(), status: answer.status, retryAfter: answer.headers.get('retry-after'), body: answer.body });
        if (answer.status !== 200) await sleep(20);
      }
    };
    const workers = Array.from({ length: 6 }, (_, offset) => worker(offset));

    await sleep(1000);
    const stoppedAt = Date.now();
    await cluster.stop();
    const downAt = Date.now();
    await sleep(2000);
    // pg_ctl -w returns a moment after the server accepts connections: "down" ends when it is asked to start.
    const startingAt = Date.now();
    await cluster.start();
    const backAt = Date.now();
    await sleep(3000);
    loading = false;
    await Promise.all(workers);

    const failures = outcomes.filter((outcome) => outcome.status !== 200);
    // A request that got no answer at all, or a 500, is explained by the server's own words.
    if (failures.some((outcome) => outcome.status === -1 || outcome.status === 500)) console.error(`server output:\n${server.logs().slice(-200000)}`);
    // Nothing hung, nothing but 503 failed.
    expect(failures.filter((outcome) => outcome.status !== 503), JSON.stringify(failures.slice(0, 5))).toEqual([]);
    for (const failure of failures) {
      expect(failure.retryAfter).toMatch(/^\d+$/);
      expect(Object.keys(JSON.parse(failure.body) as object)).toEqual(['error']);
    }
    // While it was down, every request failed fast: within the connect timeout (plus slack).
    const whileDown = outcomes.filter((outcome) => outcome.startedAt >= downAt && outcome.endedAt <= startingAt);
    expect(whileDown.length).toBeGreaterThan(0);
    expect(whileDown.filter((outcome) => outcome.status !== 503)).toEqual([]);
    const slowest = Math.max(...outcomes.map((outcome) => outcome.endedAt - outcome.startedAt));
    const slowestWhileDown = Math.max(...whileDown.map((outcome) => outcome.endedAt - outcome.startedAt));
    expect(slowestWhileDown).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);

    // Back: every route answers 200 again within 2 s, and keeps doing so.
    const recoveredAt = new Map<string, number>();
    for (const [path] of routes) {
      const after = outcomes.filter((outcome) => outcome.path === path && outcome.startedAt >= backAt);
      const firstOk = after.find((outcome) => outcome.status === 200);
      expect(firstOk, `${path} never answered 200 after the database came back`).toBeDefined();
      recoveredAt.set(path, firstOk!.endedAt - backAt);
      expect(after.filter((outcome) => outcome.startedAt >= backAt + 2000).every((outcome) => outcome.status === 200), path).toBe(true);
    }
    expect(Math.max(...recoveredAt.values())).toBeLessThanOrEqual(2000);
    console.info(
      `database restart under load: ${outcomes.length} requests, ${failures.length} fast 503s, ` +
        `stop took ${downAt - stoppedAt} ms, slowest answer while down ${slowestWhileDown} ms, slowest overall ${slowest} ms, ` +
        `every route 200 again ${Math.max(...recoveredAt.values())} ms after the database was back`,
    );
  });
});
