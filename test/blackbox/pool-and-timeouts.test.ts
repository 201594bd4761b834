import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  lockTable,
  migrateAndSeed,
  postgresAdminUrl,
  type ScratchDatabase,
  SKIP_WITHOUT_POSTGRES,
  someCampaignId,
  uniqueApplicationName,
  waitingOnLocks,
  withClient,
} from './helpers/postgres.js';
import { becameReady, eventually, everyOperation, get, type ServerProcess, startServer } from './helpers/server-process.js';

/**
 * The built server against a scratch database on the run's PostgreSQL: a pool of one held by a
 * blocked query, a query over its statement timeout, and every connection killed under it.
 * A table locked from the test's own connection stands in for a slow query.
 */
const adminUrl = postgresAdminUrl();
if (!adminUrl) console.warn(SKIP_WITHOUT_POSTGRES);

const expectEnvelope = (body: string) => {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(typeof parsed.error).toBe('string');
};

describe.skipIf(!adminUrl)('black box: pool, timeouts, lost connections', () => {
  let database: ScratchDatabase;
  let token: string;
  let campaignId: string;
  const servers: ServerProcess[] = [];
  const start = async (env: Record<string, string>) => {
    const server = await startServer({ DATABASE_URL: database.url, MIGRATE_ON_START: 'false', ...env });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    database = await createScratchDatabase(adminUrl!);
    token = await migrateAndSeed(database.url);
    campaignId = await someCampaignId(database.url);
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await database?.drop();
  });

  it('pool of 1 held by a blocked query: the next request gets 503 with Retry-After after the acquisition timeout', async () => {
    const applicationName = uniqueApplicationName();
    const server = await start({
      DB_POOL_MAX: '1',
      DB_POOL_ACQUIRE_TIMEOUT_MS: '1000',
      DB_STATEMENT_TIMEOUT_MS: '20000',
      DB_APPLICATION_NAME: applicationName,
    });
    // Ready (claim volumes loaded in the background, reading campaigns) before the lock.
    expect(await becameReady(server)).toBe(true);
    const lock = await lockTable(database.url, 'campaigns');
    try {
      const blocked = get(`${server.url}/campaigns/${campaignId}`);
      expect(await eventually(async () => (await waitingOnLocks(database.url, applicationName)) === 1, 5000)).toBe(true);

      const second = await get(`${server.url}/campaigns?pageSize=3`);
      expect(second.status).toBe(503);
      expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
      expectEnvelope(second.body);
      // It waited for the pool (not failed at once), and no longer than the timeout plus generous slack.
      expect(second.ms).toBeGreaterThanOrEqual(900);
      expect(second.ms).toBeLessThan(1000 + 3000);
      console.info(`pool exhausted: 503 after ${Math.round(second.ms)} ms (DB_POOL_ACQUIRE_TIMEOUT_MS=1000)`);

      await lock.release();
      const first = await blocked;
      expect(first.status).toBe(200);
      expect((await get(`${server.url}/campaigns?pageSize=3`)).status).toBe(200);
    } finally {
      await lock.release();
    }
  });

  it('a query over DB_STATEMENT_TIMEOUT_MS is a 504 in the envelope, soon after the timeout', async () => {
    const server = await start({ DB_STATEMENT_TIMEOUT_MS: '300' });
    const lock = await lockTable(database.url, 'campaigns');
    try {
      const answer = await get(`${server.url}/campaigns?pageSize=2`);
      expect(answer.status).toBe(504);
      expectEnvelope(answer.body);
      expect(answer.ms).toBeLessThan(300 + 3000);
      console.info(`statement timeout: 504 after ${Math.round(answer.ms)} ms (DB_STATEMENT_TIMEOUT_MS=300)`);
    } finally {
      await lock.release();
    }
    expect((await get(`${server.url}/campaigns?pageSize=2`)).status).toBe(200);
  });

  it('pg_terminate_backend of every server connection: the requests that follow succeed', async () => {
    const applicationName = uniqueApplicationName();
    const server = await start({ DB_POOL_MAX: '4', DB_APPLICATION_NAME: applicationName });
    const routes = everyOperation(campaignId, token);
    // Fill the pool with idle connections.
    for (const answer of await Promise.all(routes.map(([path, headers]) => get(server.url + path, headers)))) {
      expect(answer.status).toBe(200);
    }

    const terminated = await withClient(adminUrl!, async (client) => {
      const { rows } = await client.query<{ count: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS count FROM pg_stat_activity WHERE application_name = $1`,
        [applicationName],
      );
      return rows[0]!.count;
    });
    expect(terminated).toBeGreaterThan(0);

    for (let round = 0; round < 3; round++) {
      for (const [path, headers] of routes) {
        const answer = await get(server.url + path, headers);
        expect(answer.status, `${path}: ${answer.body}`).toBe(200);
      }
    }
    expect(server.logs()).toContain('idle database connection closed');
  });
});
