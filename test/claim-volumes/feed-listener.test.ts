import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claims } from '../../src/db/schema.js';
import { type ClaimWindowsRepository, createClaimWindowsRepository } from '../../src/claim-volumes/repository.js';
import { ClaimFeedListener } from '../../src/claim-volumes/feed-listener.js';
import { ClaimWindows } from '../../src/claim-volumes/claim-windows.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign, insertClaim } from '../helpers/factories.js';

/**
 * The claim feed's notifications on real PostgreSQL: a committed claim write is signalled, the
 * listener comes back after losing its connection, and idle claim windows poll on signals instead
 * of every CLAIM_FEED_POLL_MS. PostgreSQL only: the service never listens on PGlite.
 */
const onPostgres = inject('testDatabase').kind === 'postgres';
const quiet = { info: () => undefined, warn: () => undefined };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
}

describe.skipIf(!onPostgres)('claim feed notifications', () => {
  let database: TestDatabase;
  let campaignKey: number;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    campaignKey = (await insertCampaign(database.db)).key;
  });
  afterAll(async () => {
    for (const each of open) await each.close();
    await database.close();
  });

  const listener = (applicationName = 'claim-feed-listener-test', reads?: { statementTimeoutMs: number; queryTimeoutMs: number }) => {
    const created = new ClaimFeedListener({ url: database.url!, connectTimeoutMs: 2000, applicationName, logger: quiet, retryMs: 50, reads });
    open.push(created);
    return created;
  };

  it('signals once listening, and after each committed claim write, not before the commit', async () => {
    const signals: number[] = [];
    const feed = listener();
    feed.onChange(() => signals.push(Date.now()));
    feed.start();
    expect(await eventually(() => feed.listening)).toBe(true);
    expect(signals).toHaveLength(1); // listening began: whatever changed before was not signalled

    const writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
         SELECT key, chain_id, 0, '0x00000000000000000000000000000000000000aa', 1, 1.5, 1, '0x' || repeat('ab', 32), 0, now()
           FROM campaigns WHERE key = $1`,
        [campaignKey],
      );
      await sleep(300);
      expect(signals).toHaveLength(1);
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    expect(await eventually(() => signals.length === 2)).toBe(true);

    await database.db.delete(claims);
    expect(await eventually(() => signals.length === 3)).toBe(true);
  });

  it('listens again after losing its connection, and signals then', async () => {
    const signals: number[] = [];
    const feed = listener('claim-feed-listener-lost');
    feed.onChange(() => signals.push(Date.now()));
    feed.start();
    expect(await eventually(() => feed.listening)).toBe(true);
    const [terminated] = await queryRows<{ count: number }>(
      database.db,
      sql`SELECT count(pg_terminate_backend(pid))::int AS count FROM pg_stat_activity WHERE application_name = 'claim-feed-listener-lost'`,
    );
    expect(terminated!.count).toBe(1);
    expect(await eventually(() => !feed.listening)).toBe(true);
    expect(await eventually(() => feed.listening)).toBe(true);
    expect(signals).toHaveLength(2);
    await insertClaim(database.db, { campaignKey });
    expect(await eventually(() => signals.length === 3)).toBe(true);
  });

  it('idle claim windows poll on a signal, not every pollMs, and stay exact', async () => {
    const polls: number[] = [];
    const base = createClaimWindowsRepository(database.db);
    const repository: ClaimWindowsRepository = {
      ...base,
      changesSince: async (...args) => {
        const result = await base.changesSince(...args);
        polls.push(result.changes?.length ?? -1);
        return result;
      },
    };
    const feed = listener('claim-feed-windows');
    const windows = new ClaimWindows(repository, { pollMs: 20, idlePollMs: 60_000, signal: feed, targetsRefreshMs: 60_000, logger: quiet });
    open.push(windows);
    windows.start();
    expect(await eventually(() => feed.listening && polls.length > 0)).toBe(true);
    await sleep(200);
    const settled = polls.length;
    await sleep(600); // 30 polls' worth of pollMs
    expect(polls.length).toBe(settled);

    await insertClaim(database.db, { campaignKey, usdValue: '2.5', claimedAt: new Date(Date.now() - 1000) });
    // The background poll read the new claim without any request asking.
    expect(await eventually(() => polls.slice(settled).includes(1))).toBe(true);
    const volume = (await windows.at(new Date())).volume(campaignKey);
    const [expected] = await queryRows<{ claims: number }>(
      database.db,
      sql`SELECT count(*)::int AS claims FROM claims WHERE campaign_key = ${campaignKey} AND claimed_at > now() - interval '1 hour'`,
    );
    expect(volume?.windows['1h'].claims ?? 0).toBe(expected!.claims);
  });

  it('reads the feed on its own session when asked to, through the pool while that session is down, exact either way', async () => {
    const reads: ('session' | 'pool')[] = [];
    const base = createClaimWindowsRepository(database.db);
    const repository: ClaimWindowsRepository = {
      ...base,
      changesSince: async (since, limit, session) => {
        reads.push(session === undefined ? 'pool' : 'session');
        return base.changesSince(since, limit, session);
      },
    };
    const feed = listener('claim-feed-reads', { statementTimeoutMs: 5000, queryTimeoutMs: 6000 });
    const windows = new ClaimWindows(repository, {
      pollMs: 20,
      idlePollMs: 60_000,
      signal: feed,
      readOnFeedSession: (read) => feed.readOnSession(read),
      targetsRefreshMs: 60_000,
      logger: quiet,
    });
    open.push(windows);
    windows.start();
    expect(await eventually(() => feed.listening && reads.length > 0)).toBe(true);
    const claimsInLastHour = async () =>
      (await queryRows<{ claims: number }>(
        database.db,
        sql`SELECT count(*)::int AS claims FROM claims WHERE campaign_key = ${campaignKey} AND claimed_at > now() - interval '1 hour'`,
      ))[0]!.claims;
    const counted = async () => (await windows.at(new Date())).volume(campaignKey)?.windows['1h'].claims ?? 0;

    reads.length = 0;
    await insertClaim(database.db, { campaignKey, claimedAt: new Date(Date.now() - 1000) });
    expect(await counted()).toBe(await claimsInLastHour());
    expect(reads.length).toBeGreaterThan(0);
    expect(new Set(reads)).toEqual(new Set(['session']));

    // The session goes away: reads go through the pool (still exact) until it is back.
    await queryRows(database.db, sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'claim-feed-reads'`);
    expect(await eventually(() => !feed.listening)).toBe(true);
    reads.length = 0;
    await insertClaim(database.db, { campaignKey, claimedAt: new Date(Date.now() - 1000) });
    expect(await counted()).toBe(await claimsInLastHour());
    expect(reads).toContain('pool');

    expect(await eventually(() => feed.listening)).toBe(true);
    reads.length = 0;
    await insertClaim(database.db, { campaignKey, claimedAt: new Date(Date.now() - 1000) });
    expect(await counted()).toBe(await claimsInLastHour());
    expect(reads.at(-1)).toBe('session');
  });

  it('a read on its session is bounded: the statement timeout applies, and an answer that never comes closes the session, which reconnects', async () => {
    const feed = listener('claim-feed-bounded', { statementTimeoutMs: 100, queryTimeoutMs: 400 });
    feed.start();
    expect(await eventually(() => feed.listening)).toBe(true);
    await expect(feed.readOnSession((session) => session.query('SELECT pg_sleep(2)'))).rejects.toMatchObject({ code: '57014' });
    expect(await eventually(() => feed.listening)).toBe(true);

    // A peer that stops answering: the session's backend is paused by a lock it waits for, past the client's limit.
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE claim_change_marks IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      await expect(
        feed.readOnSession((session) => session.query('SET statement_timeout = 0').then(() => session.query('SELECT count(*) FROM claim_change_marks'))),
      ).rejects.toThrow(/no answer in time/);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(feed.readOnSession(async () => 'unused')).toBeUndefined(); // closed; reconnecting
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    expect(await eventually(() => feed.listening)).toBe(true);
    expect(await feed.readOnSession(async (session) => (await session.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one)).toBe(1);
  });

  it('does not read on its session without `reads`', async () => {
    const feed = listener('claim-feed-no-reads');
    feed.start();
    expect(await eventually(() => feed.listening)).toBe(true);
    expect(feed.readOnSession(async () => 1)).toBeUndefined();
  });
});
