import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claims } from '../../src/db/schema.js';
import {
  CLAIM_WINDOWS,
  type ClaimWindowsRepository,
  createClaimWindowsRepository,
  WINDOW_NAMES,
} from '../../src/claim-volumes/repository.js';
import { parseMicros } from '../../src/services/amounts.js';
import { RANKED_WINDOWS } from '../../src/claim-volumes/state.js';
import { ClaimWindows } from '../../src/claim-volumes/claim-windows.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address, erc20Incentive, insertCampaign, insertClaim } from '../helpers/factories.js';
import { insertTimedClaims, timedScenarioArbitrary } from '../helpers/timed-claims.js';

const T = new Date('2026-06-01T12:00:00.000Z').getTime();
const HOUR = 3_600_000;
const quiet = { info: () => undefined, warn: () => undefined };

describe('claim windows', () => {
  let database: TestDatabase;
  const keys: number[] = [];
  const open: ClaimWindows[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    for (let index = 0; index < 4; index++) keys.push((await insertCampaign(database.db)).key);
  });
  afterAll(async () => {
    await Promise.all(open.map((windows) => windows.close()));
    await database.close();
  });
  beforeEach(async () => {
    await database.db.delete(claims);
  });

  function claimWindows(repository: ClaimWindowsRepository = createClaimWindowsRepository(database.db), logger = quiet) {
    const windows = new ClaimWindows(repository, { pollMs: 10, targetsRefreshMs: 10, logger, clock: () => new Date(T) });
    open.push(windows);
    return windows;
  }

  async function plainAggregation(now: number) {
    const result = new Map<string, { claims: number; usdMicros: number }>();
    for (const name of WINDOW_NAMES) {
      const rows = await queryRows<{ campaign_key: number; claims: number; usd: string }>(
        database.db,
        sql`SELECT campaign_key, count(*)::integer AS claims, sum(usd_value)::text AS usd FROM claims
             WHERE claimed_at > ${new Date(now - CLAIM_WINDOWS[name])} AND claimed_at <= ${new Date(now)}
             GROUP BY campaign_key`,
      );
      for (const row of rows) result.set(`${row.campaign_key}/${name}`, { claims: row.claims, usdMicros: parseMicros(row.usd) });
    }
    return result;
  }

  async function expectExact(windows: ClaimWindows, now: number) {
    const view = await windows.at(new Date(now));
    const expected = await plainAggregation(now);
    for (const key of keys) {
      for (const name of WINDOW_NAMES) {
        const actual = view.volume(key)?.windows[name] ?? { claims: 0, usdMicros: 0 };
        expect(actual, `campaign ${key}, ${name}`).toEqual(expected.get(`${key}/${name}`) ?? { claims: 0, usdMicros: 0 });
      }
    }
    for (const name of RANKED_WINDOWS) {
      const ranked = [...view.ranked(name)].map((volume) => volume.key);
      expect(new Set(ranked)).toEqual(new Set(keys.filter((key) => (expected.get(`${key}/${name}`)?.claims ?? 0) > 0)));
      const usd = ranked.map((key) => expected.get(`${key}/${name}`)!.usdMicros);
      expect(usd).toEqual([...usd].sort((a, b) => b - a));
    }
  }

  it('equal a plain aggregation at the first read and at any later instant, with claims written in between', async () => {
    await fc.assert(
      fc.asyncProperty(timedScenarioArbitrary(4, 2 * HOUR, 3 * HOUR), async ([laterMs, before, after]) => {
        await database.db.delete(claims);
        await insertTimedClaims(database.db, keys, T, before);
        const windows = claimWindows();
        await expectExact(windows, T);
        await insertTimedClaims(database.db, keys, T, after);
        await expectExact(windows, T + laterMs);
        await windows.close();
      }),
      { numRuns: 30 },
    );
  });

  it('reloads when the claims were truncated or loaded in bulk', async () => {
    const repository = createClaimWindowsRepository(database.db);
    const load = vi.spyOn(repository, 'load');
    const windows = claimWindows(repository);
    await insertTimedClaims(database.db, keys, T, [{ campaign: 0, offsetMs: -1000, usdMicros: 1_000_000 }]);
    await expectExact(windows, T);
    await database.db.execute(sql`TRUNCATE claims`);
    await expectExact(windows, T);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT set_config('campaign_service.defer_refresh', 'on', true)`);
      await insertTimedClaims(tx, keys, T, [{ campaign: 1, offsetMs: -1000, usdMicros: 2_000_000 }]);
    });
    await expectExact(windows, T);
    expect(load).toHaveBeenCalledTimes(3);
    expect(windows.loads).toEqual({ start: 1, behind: 0, large_write: 0, bulk_reload: 2 });
  });

  it('reloads instead of reading the feed after falling more than five minutes behind it', async () => {
    const repository = createClaimWindowsRepository(database.db);
    const load = vi.spyOn(repository, 'load');
    const changesSince = repository.changesSince.bind(repository);
    let lagMs = 0;
    vi.spyOn(repository, 'changesSince').mockImplementation(async (since, limit) => {
      const result = await changesSince(since, limit);
      return { ...result, position: { ...result.position, atMs: result.position.atMs + lagMs } };
    });
    const windows = claimWindows(repository);
    await expectExact(windows, T);
    await insertTimedClaims(database.db, keys, T, [{ campaign: 2, offsetMs: -1000, usdMicros: 1_000_000 }]);
    await expectExact(windows, T);
    expect(load).toHaveBeenCalledTimes(1);
    lagMs = 5 * 60_000 + 1;
    await expectExact(windows, T);
    expect(load).toHaveBeenCalledTimes(2);
    expect(windows.loads).toEqual({ start: 1, behind: 1, large_write: 0, bulk_reload: 0 });
  });

  it('reloads when the feed holds more changes than one read takes', async () => {
    const repository = createClaimWindowsRepository(database.db);
    const windows = claimWindows(repository);
    await expectExact(windows, T);
    const changesSince = repository.changesSince.bind(repository);
    // The repository's answer past its limit (`limit` changes and more): no changes, only the position.
    vi.spyOn(repository, 'changesSince').mockImplementationOnce(async (since) => ({ ...(await changesSince(since)), changes: undefined }));
    await insertTimedClaims(database.db, keys, T, [{ campaign: 3, offsetMs: -1000, usdMicros: 3_000_000 }]);
    await expectExact(windows, T);
    expect(windows.loads).toEqual({ start: 1, behind: 0, large_write: 1, bulk_reload: 0 });
  });

  it('keeps itself current in the background once started, and stops when closed', async () => {
    const repository = createClaimWindowsRepository(database.db);
    const polls = vi.spyOn(repository, 'changesSince');
    const info = vi.fn();
    const windows = claimWindows(repository, { ...quiet, info });
    windows.start();
    await vi.waitFor(() => expect(polls.mock.calls.length).toBeGreaterThan(2));
    expect(info).toHaveBeenCalledWith(expect.objectContaining({ reason: 'start' }), 'claim volumes loaded');
    await windows.close();
    const after = polls.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(polls.mock.calls.length).toBe(after);
  });

  it('rereads which campaigns target named contracts when campaigns change, not when a claim spends a budget', async () => {
    const spendable = await insertCampaign(database.db, { incentives: [erc20Incentive(address(0x7e001), '1000000', '1')] });
    const repository = createClaimWindowsRepository(database.db);
    const rereads = vi.spyOn(repository, 'targetedContracts');
    const polls = vi.spyOn(repository, 'changesSince');
    const windows = claimWindows(repository);
    windows.start();
    await vi.waitFor(() => expect(polls).toHaveBeenCalled());
    expect(rereads).toHaveBeenCalledTimes(1);
    const versions = async () =>
      (await queryRows<{ value: string; targets: string }>(database.db, sql`SELECT value::text, targets::text FROM campaign_set_version`))[0]!;

    const before = await versions();
    await insertClaim(database.db, { campaignKey: spendable.key, claimedAt: new Date(T - 1000) });
    const after = await versions();
    // The claim spent the campaign's only incentive: its flags flipped (what list filters match)...
    expect(after.value).not.toBe(before.value);
    // ...but not which contracts campaigns target, which the background job would reread otherwise.
    expect(after.targets).toBe(before.targets);
    const seen = polls.mock.calls.length;
    await vi.waitFor(() => expect(polls.mock.calls.length).toBeGreaterThan(seen + 3));
    expect(rereads).toHaveBeenCalledTimes(1);

    // A new campaign with its action step: reread (once per version the job sees: the campaign, its
    // incentive and its step are separate statements, each bumping the version).
    await insertCampaign(database.db);
    await vi.waitFor(() => expect(rereads.mock.calls.length).toBeGreaterThanOrEqual(2));
  });

  it('shares one poll between the requests that arrive while it is under way', async () => {
    const repository = createClaimWindowsRepository(database.db);
    const windows = claimWindows(repository);
    await windows.at(new Date(T));
    const polls = vi.spyOn(repository, 'changesSince');
    await Promise.all(Array.from({ length: 20 }, () => windows.at(new Date(T))));
    // The first request starts a poll; the others wait for one that starts after they arrived.
    expect(polls.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it('sends the next poll before answering the requests of the one that ended', async () => {
    const repository = createClaimWindowsRepository(database.db);
    const windows = claimWindows(repository);
    await windows.at(new Date(T));
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const read = repository.changesSince.bind(repository);
    let reads = 0;
    vi.spyOn(repository, 'changesSince').mockImplementation(async (...args) => {
      const number = ++reads;
      events.push(`read ${number}`);
      const changes = await read(...args);
      if (number === 1) await held;
      return changes;
    });
    const first = windows.at(new Date(T)).then(() => events.push('first request answered'));
    await vi.waitFor(() => expect(events).toEqual(['read 1']));
    // Arrives while the first poll is under way: it needs the next one.
    await insertClaim(database.db, { campaignKey: keys[0]!, usdValue: '4', claimedAt: new Date(T - HOUR / 4) });
    const second = windows.at(new Date(T));
    release();
    await first;
    // The second poll's read left before the first poll's request was answered, not after.
    expect(events).toEqual(['read 1', 'read 2', 'first request answered']);
    await second;
    expect(reads).toBe(2);
    await expectExact(windows, T);
  });

  it('reads the feed through the pool, exact, when the read on its own session fails', async () => {
    const repository = createClaimWindowsRepository(database.db);
    const warnings: string[] = [];
    const windows = new ClaimWindows(repository, {
      pollMs: 10,
      targetsRefreshMs: 10,
      logger: { info: () => undefined, warn: (_: unknown, message?: string) => void warnings.push(message ?? '') },
      clock: () => new Date(T),
      // A session that fails every read (lost mid-read, over its statement timeout).
      readOnFeedSession: () => Promise.reject(new Error('Connection terminated unexpectedly')),
    });
    open.push(windows);
    await windows.at(new Date(T));
    const reads = vi.spyOn(repository, 'changesSince');
    await insertClaim(database.db, { campaignKey: keys[0]!, usdValue: '2.5', claimedAt: new Date(T - HOUR / 2) });
    await expectExact(windows, T);
    expect(reads.mock.calls.length).toBeGreaterThan(0);
    for (const call of reads.mock.calls) expect(call[2]).toBeUndefined();
    expect(warnings).toContain('claim feed read on its own session failed; reading through the pool');
  });
});
