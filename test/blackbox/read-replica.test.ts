import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findClusterTools, migrateAndSeed, postgresAdminUrl, SKIP_WITHOUT_POSTGRES, someCampaignId, withClient } from './helpers/postgres.js';
import { openDatabase } from '../../src/db/client.js';
import { createReplicatedPair, type ReplicatedPair } from './helpers/replica.js';
import { becameReady, eventually, everyOperation, get, type ServerProcess, sleep, startServer } from './helpers/server-process.js';

/**
 * The built server reading from a real hot standby (a streaming replica made here with initdb and
 * pg_basebackup -R) while bearer tokens are checked on the primary: every route answers, a claim
 * written on the primary shows once replayed, the answers equal those read from the primary, a
 * standby whose replay stops answers 503 with Retry-After until it catches up, and a read the
 * standby cancels for a real recovery conflict is run again.
 */
const tools = findClusterTools();
const skipReason = !postgresAdminUrl() ? SKIP_WITHOUT_POSTGRES : typeof tools === 'string' ? `read replica test skipped: ${tools}` : undefined;
if (skipReason) console.warn(skipReason);

describe.skipIf(skipReason !== undefined)('black box: reads on a streaming replica', () => {
  let pair: ReplicatedPair;
  let token: string;
  let campaignId: string;
  const servers: ServerProcess[] = [];
  const start = async (env: Record<string, string>) => {
    const server = await startServer({ MIGRATE_ON_START: 'false', ...env });
    servers.push(server);
    return server;
  };
  /** The standby has replayed everything the primary has written so far. */
  const caughtUp = async () => {
    const target = await withClient(pair.primaryUrl, async (client) => (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn);
    return eventually(
      () =>
        withClient(pair.standbyUrl, async (client) =>
          (await client.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [target])).rows[0]!.done,
        ),
      20_000,
    );
  };
  /** An active campaign of the demo data: trending lists only those. */
  const activeCampaign = () =>
    withClient(pair.primaryUrl, async (client) =>
      (
        await client.query<{ key: number; public_id: string }>(
          `SELECT key, public_id FROM campaigns
            WHERE (start_time IS NULL OR start_time <= now()) AND (end_time IS NULL OR end_time > now())
            ORDER BY key LIMIT 1`,
        )
      ).rows[0]!,
    );
  let logIndex = 1_000_000;
  /** A claim worth more than every other claim of the demo data together, made now. */
  const claimOnPrimary = (campaignKey: number) =>
    withClient(pair.primaryUrl, (client) =>
      client.query(
        `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
         VALUES ($1, (SELECT chain_id FROM campaigns WHERE key = $1), 0, '0x00000000000000000000000000000000000000aa', 1, 1000000000, 1, $2, $3, now())`,
        [campaignKey, `0x${'ab'.repeat(32)}`, logIndex++],
      ),
    );
  const topOfTrending = async (server: ServerProcess) => {
    const answer = await get(`${server.url}/reward-kit/trending?pageSize=1&sortBy=1h`);
    return answer.status === 200 ? (JSON.parse(answer.body) as { trendingCampaigns: { id: string }[] }).trendingCampaigns[0]?.id : undefined;
  };

  beforeAll(async () => {
    pair = await createReplicatedPair();
    token = await migrateAndSeed(pair.primaryUrl);
    campaignId = await someCampaignId(pair.primaryUrl);
    expect(await caughtUp()).toBe(true);
  }, 180_000);
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await pair?.destroy();
  });

  it('every route answers from the standby; the standby refuses writes, so the reads really are there', async () => {
    const server = await start({ DATABASE_URL: pair.primaryUrl, DATABASE_READ_URL: pair.standbyUrl });
    expect(await becameReady(server, 30_000), server.logs()).toBe(true);
    for (const [path, headers] of everyOperation(campaignId, token)) {
      const answer = await get(`${server.url}${path}`, headers);
      expect(answer.status, `${path}: ${answer.body}`).toBe(200);
    }
    const reads = await withClient(pair.standbyUrl, async (client) =>
      (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'campaign-service'`)).rows[0]!.n,
    );
    expect(reads).toBeGreaterThan(0);
    const refused = await withClient(pair.standbyUrl, (client) => client.query('CREATE TABLE nope (x int)').catch((error: unknown) => error));
    expect((refused as { code?: string }).code).toBe('25006');
  });

  it('a claim written on the primary appears once replayed, and the answers equal those read from the primary', async () => {
    const fromStandby = await start({ DATABASE_URL: pair.primaryUrl, DATABASE_READ_URL: pair.standbyUrl });
    const fromPrimary = await start({ DATABASE_URL: pair.primaryUrl });
    for (const server of [fromStandby, fromPrimary]) expect(await becameReady(server, 30_000), server.logs()).toBe(true);
    const campaign = await activeCampaign();
    expect(await topOfTrending(fromStandby)).not.toBe(campaign.public_id);

    await claimOnPrimary(campaign.key);
    expect(await eventually(async () => (await topOfTrending(fromStandby)) === campaign.public_id, 10_000)).toBe(true);

    // Exact against the standby's own snapshot: once it has replayed everything, the same bytes as from the primary.
    expect(await caughtUp()).toBe(true);
    for (const path of ['/reward-kit/trending?pageSize=20', '/reward-kit/trending?sortBy=1h', '/explore/contracts?sortBy=most-completions', `/campaigns/${campaign.public_id}`, '/campaigns?pageSize=50']) {
      const [a, b] = [await get(`${fromStandby.url}${path}`), await get(`${fromPrimary.url}${path}`)];
      expect(a.status).toBe(200);
      expect(a.body, path).toBe(b.body);
    }
  });

  it('a read the standby cancels to replay the primary\'s cleanup (a real recovery conflict, 40001) is run again', async () => {
    // A standby that waits at most 50 ms for its queries before it cancels them to replay on.
    await withClient(pair.standbyUrl, async (client) => {
      await client.query("ALTER SYSTEM SET max_standby_streaming_delay = '50ms'");
      await client.query('SELECT pg_reload_conf()');
    });
    await withClient(pair.primaryUrl, (client) =>
      client.query('CREATE TABLE conflict_probe AS SELECT g AS id FROM generate_series(1, 1000) AS g'),
    );
    expect(await caughtUp()).toBe(true);
    const conflicts = () =>
      withClient(pair.standbyUrl, async (client) =>
        Number(
          (await client.query<{ n: string }>(
            'SELECT (confl_snapshot + confl_lock)::text AS n FROM pg_stat_database_conflicts WHERE datname = current_database()',
          )).rows[0]!.n,
        ),
      );
    // The primary deletes the rows the standby's reads still see, and vacuums them away: replaying
    // that conflicts with every standby query whose snapshot is older.
    const cleanUpOnPrimary = async () => {
      await sleep(300);
      await withClient(pair.primaryUrl, async (client) => {
        await client.query('DELETE FROM conflict_probe WHERE id <= 500');
        await client.query('VACUUM conflict_probe');
      });
    };
    const slowRead = 'SELECT count(*)::integer AS n FROM conflict_probe, pg_sleep(1.5)';

    // A plain connection sees the cancellation: this is the error the service must absorb.
    const before = await conflicts();
    // Its outcome is taken as a value at once: the standby may cancel the read while the cleanup is
    // still closing its connection, and a rejection nothing handles yet would fail the run.
    const plain = withClient(pair.standbyUrl, (client) => client.query(slowRead)).then(
      () => undefined,
      (error: unknown) => error,
    );
    await cleanUpOnPrimary();
    expect(await plain).toMatchObject({ code: '40001' });
    expect(await conflicts()).toBeGreaterThan(before);

    // The service's read pool runs the cancelled statement again, on a newer snapshot.
    await withClient(pair.primaryUrl, (client) => client.query('INSERT INTO conflict_probe SELECT generate_series(1, 500)'));
    expect(await caughtUp()).toBe(true);
    const database = await openDatabase({
      DATABASE_URL: pair.primaryUrl,
      DATABASE_READ_URL: pair.standbyUrl,
      PGLITE_DATA_DIR: 'memory://',
      DB_POOL_MAX: 2,
      DB_STATEMENT_TIMEOUT_MS: 10_000,
      DB_CONNECT_TIMEOUT_MS: 5_000,
    });
    try {
      const beforeRetry = await conflicts();
      const retried = database.readPool!.query<{ n: number }>(slowRead).then(
        (result) => ({ rows: result.rows }),
        (error: unknown) => ({ error }),
      );
      await cleanUpOnPrimary();
      const outcome = await retried;
      if ('error' in outcome) throw outcome.error;
      const { rows } = outcome;
      expect(await conflicts()).toBeGreaterThan(beforeRetry);
      // Read after the cleanup replayed: the 500 rows left, not the 1,000 the cancelled attempt saw.
      expect(rows).toEqual([{ n: 500 }]);
    } finally {
      await database.close();
      await withClient(pair.standbyUrl, async (client) => {
        await client.query('ALTER SYSTEM RESET max_standby_streaming_delay');
        await client.query('SELECT pg_reload_conf()');
      });
    }
  }, 60_000);

  it('a standby that stops replaying: 503 with Retry-After past DB_READ_MAX_LAG_MS, then answers again once it catches up', async () => {
    const server = await start({ DATABASE_URL: pair.primaryUrl, DATABASE_READ_URL: pair.standbyUrl, DB_READ_MAX_LAG_MS: '1000' });
    expect(await becameReady(server, 30_000), server.logs()).toBe(true);
    await withClient(pair.standbyUrl, (client) => client.query('SELECT pg_wal_replay_pause()'));
    try {
      const campaign = await activeCampaign();
      await claimOnPrimary(campaign.key);
      expect(
        await eventually(async () => (await get(`${server.url}/campaigns?pageSize=1`)).status === 503, 10_000),
        server.logs(),
      ).toBe(true);
      const refused = await get(`${server.url}/reward-kit/trending`);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(JSON.parse(refused.body)).toEqual({ error: expect.stringMatching(/^the read replica is [\d.]+ s behind the primary/) as string });
      expect((await get(`${server.url}/health/ready`)).status).toBe(503);
    } finally {
      await withClient(pair.standbyUrl, (client) => client.query('SELECT pg_wal_replay_resume()'));
    }
    expect(await eventually(async () => (await get(`${server.url}/campaigns?pageSize=1`)).status === 200, 10_000)).toBe(true);
    expect(server.logs()).not.toMatch(/"statusCode":500/);
  });
});
