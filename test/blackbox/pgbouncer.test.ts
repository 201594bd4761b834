import { randomInt } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgBouncer, pgbouncerMissing, startPgBouncer } from './helpers/pgbouncer.js';
import {
  createScratchDatabase,
  lockTable,
  migrateAndSeed,
  postgresAdminUrl,
  type ScratchDatabase,
  SKIP_WITHOUT_POSTGRES,
  someCampaignId,
  withClient,
} from './helpers/postgres.js';
import { becameReady, eventually, everyOperation, get, type ServerProcess, sleep, startServer } from './helpers/server-process.js';
import { SseClient } from '../helpers/sse.js';

/**
 * Replicas of the built server behind PgBouncer in transaction mode (the server connections are
 * shared transaction by transaction), with budgets shared in Redis: no errors under load, the
 * statement timeout still applies, a misconfiguration stops the process with a message, one
 * rate limit budget across replicas, and answers from the response cache count against it.
 */
const adminUrl = postgresAdminUrl();
const missing = adminUrl ? pgbouncerMissing() : SKIP_WITHOUT_POSTGRES;
if (missing) console.warn(`PgBouncer black-box tests skipped: ${missing}`);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** CI starts Redis (.ci/run); elsewhere the shared budget case says why it skips. */
const redisUp = await new Promise<boolean>((resolve) => {
  const { hostname, port } = new URL(REDIS_URL);
  const socket = connect({ host: hostname, port: Number(port || 6379) });
  socket.setTimeout(1000, () => socket.destroy());
  socket.once('connect', () => {
    socket.end();
    resolve(true);
  });
  socket.once('close', () => resolve(false));
  socket.once('error', () => resolve(false));
});
if (!missing && !redisUp) console.warn(`Redis does not answer at ${REDIS_URL}: the shared rate limit case is skipped (set TEST_REDIS_URL)`);

describe.skipIf(missing !== undefined)('black box: replicas behind PgBouncer in transaction mode', () => {
  let database: ScratchDatabase;
  let bouncer: PgBouncer;
  let token: string;
  let campaignId: string;
  const servers: ServerProcess[] = [];
  const start = async (env: Record<string, string>) => {
    const server = await startServer({ MIGRATE_ON_START: 'false', ...env });
    servers.push(server);
    return server;
  };
  // Load shedding off: on a machine busy with other work it would answer 503s, which is not what these tests are about.
  const pooled = (env: Record<string, string> = {}) =>
    start({ DATABASE_URL: bouncer.through(database.url), DB_POOL_MODE: 'transaction', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', ...env });

  beforeAll(async () => {
    database = await createScratchDatabase(adminUrl!);
    token = await migrateAndSeed(database.url);
    campaignId = await someCampaignId(database.url);
    bouncer = await startPgBouncer(adminUrl!, { poolMode: 'transaction', poolSize: 4 });
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await bouncer?.stop();
    await database?.drop();
  });

  it('two replicas under load: every request of every operation answers 200, with 4 server connections shared', async () => {
    // The first as docs/operations.md deploys it: with the direct MIGRATE_DATABASE_URL it listens for claim
    // changes and reads the claim feed on that session; the second reads the feed through PgBouncer.
    const replicas = [
      await pooled({ DB_POOL_MAX: '10', MIGRATE_DATABASE_URL: database.url, DB_APPLICATION_NAME: 'pgbouncer-blackbox-direct-feed' }),
      await pooled({ DB_POOL_MAX: '10' }),
    ];
    for (const replica of replicas) expect(await becameReady(replica, 30_000), replica.logs()).toBe(true);
    const operations = everyOperation(campaignId, token);
    const statuses = new Map<number, number>();
    const deadline = Date.now() + 4000;
    // 16 clients at once, each asking both replicas every operation in turn, for four seconds.
    await Promise.all(
      Array.from({ length: 16 }, async (_, client) => {
        for (let i = client; Date.now() < deadline; i++) {
          const [path, headers] = operations[i % operations.length]!;
          const { status } = await get(`${replicas[i % 2]!.url}${path}`, headers);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    const total = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    console.info(`through PgBouncer (transaction mode, 4 server connections): ${total} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect([...statuses.keys()]).toEqual([200]);
    expect(total).toBeGreaterThan(100);
    for (const replica of replicas) expect(replica.logs()).not.toMatch(/"level":50/);
    expect(replicas[0]!.logs()).not.toMatch(/reading through the pool/);
    // The first replica's feed reads ran on its own direct session, not through the pooler.
    const feedSessions = await withClient(database.url, async (client) =>
      (await client.query<{ query: string }>(`SELECT query FROM pg_stat_activity WHERE application_name = 'pgbouncer-blackbox-direct-feed (claim feed)'`)).rows,
    );
    expect(feedSessions).toHaveLength(1);
    expect(feedSessions[0]!.query).toMatch(/claim_changes_after/);
  });

  it('events and read-your-writes through the pooler: two replicas stream the same claim with the same id, and minBlock waits for its block', async () => {
    const replicas = [await pooled({ EVENTS_POLL_MS: '50', INDEXED_BLOCKS_POLL_MS: '50' }), await pooled({ EVENTS_POLL_MS: '50', INDEXED_BLOCKS_POLL_MS: '50' })];
    for (const replica of replicas) expect(await becameReady(replica, 30_000), replica.logs()).toBe(true);
    const streams = replicas.map((replica) => new SseClient(`${replica.url}/events?type=claim.written`));
    for (const stream of streams) expect(await stream.open()).toBe(200);
    const core = '0x00000000000000000000000000000000000000c1';
    const [chainId] = campaignId.split(':');
    // The indexer follows the chain, through block 900000000 so far.
    await withClient(database.url, (client) =>
      client.query(`INSERT INTO indexer_checkpoints (chain_id, core_address, block_number, block_hash, block_timestamp) VALUES ($1, $2, 900000000, $3, 1763999998)`, [
        Number(chainId),
        core,
        `0x${'ab'.repeat(32)}`,
      ]),
    );
    // As the indexer writes, through the pooler: the claim and the chain's checkpoint in one transaction.
    const asked = get(`${replicas[1]!.url}/campaigns/${campaignId}?minBlock=${chainId}:900000001`);
    await sleep(200);
    const txHash = `0x${randomInt(1, 2 ** 47).toString(16).padStart(64, '0')}`;
    await withClient(bouncer.through(database.url), async (client) => {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index, block_number)
         SELECT c.key, i.position, '0x00000000000000000000000000000000000000b1', 1, 1, 1, $2, now(), c.chain_id, 0, 900000001
           FROM campaigns AS c JOIN incentives AS i ON i.campaign_key = c.key WHERE c.public_id = $1 ORDER BY i.position LIMIT 1`,
        [campaignId, txHash],
      );
      await client.query(
        `UPDATE indexer_checkpoints SET block_number = 900000001, block_timestamp = 1764000000 WHERE chain_id = $1 AND core_address = $2 AND block_hash = $3`,
        [Number(chainId), core, `0x${'ab'.repeat(32)}`],
      );
      await client.query('COMMIT');
    });
    const answer = await asked;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('indexed-blocks')).toBe(`${chainId};block=900000001;time=1764000000`);
    for (const stream of streams) await stream.until((events) => events.some((event) => event.data.includes(txHash)));
    const ids = streams.map((stream) => stream.events.find((event) => event.data.includes(txHash))!.id);
    expect(ids[0]).toMatch(/^\d+-\d+$/);
    expect(ids[1]).toBe(ids[0]);
    await Promise.all(streams.map((stream) => stream.close()));
    await withClient(database.url, (client) => client.query('DELETE FROM indexer_checkpoints WHERE core_address = $1', [core]));
  });

  it('a query over a 1 ms statement timeout is cancelled by PostgreSQL: 504', async () => {
    const server = await pooled({ DB_STATEMENT_TIMEOUT_MS: '1', DB_QUERY_TIMEOUT_MS: '10000' });
    // Started (connection checked): answers are 200 or, for a query slower than 1 ms, 504; no longer 503.
    expect(await eventually(async () => (await get(`${server.url}/campaigns?pageSize=1`)).status !== 503, 20_000)).toBe(true);
    const lock = await lockTable(database.url, 'campaign_documents');
    try {
      const answer = await get(`${server.url}/campaigns/${campaignId}`, {}, 8000);
      expect(answer.status, server.logs()).toBe(504);
      expect(JSON.parse(answer.body)).toEqual({ error: 'the request took too long to answer; narrow it down or retry' });
    } finally {
      await lock.release();
    }
    // And the timeout applies to every transaction, not only to the first of a server connection.
    const lockAgain = await lockTable(database.url, 'campaign_documents');
    try {
      expect((await get(`${server.url}/campaigns/${campaignId}`, {}, 8000)).status).toBe(504);
    } finally {
      await lockAgain.release();
    }
  });

  it('session settings behind a transaction pooler, or a database that does not exist: the process exits 1 saying what to fix', async () => {
    /** The output of a server that must exit with code 1 (during start-up, or just after /health/live answered). */
    const failsToStart = async (env: Record<string, string>): Promise<string> => {
      try {
        const server = await start(env);
        expect(await server.exited).toBe(1);
        return server.logs();
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(await failsToStart({ DATABASE_URL: bouncer.through(database.url), DB_POOL_MODE: 'session' })).toMatch(
      /failed to start: .*refused the connection \(08P01: unsupported startup parameter: statement_timeout\).*set DB_POOL_MODE=transaction/,
    );
    expect(await failsToStart({ DATABASE_URL: bouncer.through(`${database.url}_missing`), DB_POOL_MODE: 'transaction' })).toMatch(
      /failed to start: .*refused the connection \((?:08P01|3D000): database ".*_missing" does not exist\): check the role, password and database name/,
    );
  });

  it('migrations through PgBouncer take a transaction-level lock: two replicas migrating at once both start', async () => {
    const fresh = await createScratchDatabase(adminUrl!);
    try {
      const both = [
        await start({ DATABASE_URL: bouncer.through(fresh.url), DB_POOL_MODE: 'transaction', MIGRATE_ON_START: 'true' }),
        await start({ DATABASE_URL: bouncer.through(fresh.url), DB_POOL_MODE: 'transaction', MIGRATE_ON_START: 'true' }),
      ];
      for (const server of both) expect(await becameReady(server, 30_000), server.logs()).toBe(true);
      const countApplied = (url: string) =>
        withClient(url, async (client) => (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations')).rows[0]!.n);
      // Each migration applied once, as on the database the seed migrated directly.
      expect(await countApplied(fresh.url)).toBe(await countApplied(database.url));
      for (const server of both) await server.stop();
    } finally {
      await fresh.drop();
    }
  });

  describe('rate limits', () => {
    /** A client address of its own per run (through TRUST_PROXY), so that runs sharing a Redis do not share budgets. */
    const client = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    const asClient = { 'x-forwarded-for': client };

    it.runIf(redisUp)('RATE_LIMIT_MAX=50 shared by two replicas in Redis: exactly 50 answers, then 429s', async () => {
      const env = { RATE_LIMIT_MAX: '50', RATE_LIMIT_REDIS_URL: REDIS_URL, TRUST_PROXY: '127.0.0.1' };
      const replicas = [await pooled(env), await pooled(env)];
      for (const replica of replicas) expect(await becameReady(replica, 30_000), replica.logs()).toBe(true);
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push((await get(`${replicas[i % 2]!.url}/campaigns?pageSize=1`, asClient)).status);
      expect(statuses.slice(0, 50)).toEqual(Array(50).fill(200));
      expect(statuses.slice(50)).toEqual(Array(10).fill(429));
      for (const replica of replicas) expect(replica.logs()).not.toMatch(/rate limit store unreachable/);
    });

    it('a URL answered from the response cache is limited too, and carries the headers', async () => {
      const server = await pooled({ RATE_LIMIT_MAX: '50', RESPONSE_CACHE_TTL_MS: '60000' });
      expect(await becameReady(server, 30_000), server.logs()).toBe(true);
      const answers = [];
      for (let i = 0; i < 60; i++) answers.push(await get(`${server.url}/campaigns?pageSize=2`));
      expect(answers.map((answer) => answer.status)).toEqual([...Array<number>(50).fill(200), ...Array<number>(10).fill(429)]);
      expect(answers[49]!.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(answers[49]!.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
      expect(answers[49]!.headers.get('etag')).toBe(answers[1]!.headers.get('etag'));
    });
  });
});
