import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claims } from '../../src/db/schema.js';
import { CLAIM_WINDOWS } from '../../src/claim-volumes/repository.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address, insertCampaign, insertContract } from '../helpers/factories.js';
import pg from 'pg';
import {
  insertTimedClaims,
  insertTimedClaimsOn,
  type TimedClaim,
  timedClaimArbitrary,
  timedScenarioArbitrary,
  usdText,
} from '../helpers/timed-claims.js';

const T = new Date('2026-06-01T12:00:00.000Z').getTime();
const HOUR = 3_600_000;

interface Totals {
  claims: number;
  usd: number;
}

/**
 * The activity routes end to end against plain SQL aggregations over the claims table: whatever the
 * claims, the volumes `GET /reward-kit/trending` and `GET /explore/contracts` report at an instant
 * are those of `count(*)` and `sum(usd_value)` over the window ending then. The first request builds
 * the claim-window snapshot; the second comes later, after more claims (some dated before the first).
 */
describe('activity volumes equal a plain aggregation over the claims table', () => {
  let database: TestDatabase;
  const keys: number[] = [];
  const ids = new Map<string, number>();
  /** Named contracts and the campaigns (indexes into `keys`) whose steps target them. */
  const targets: Record<string, number[]> = { Router: [0, 1], Minter: [1, 2] };

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    const router = await insertContract(db, { chainId: 8453, name: 'Router' });
    const minter = await insertContract(db, { chainId: 8453, name: 'Minter' });
    const stepsOf = [[router], [router, minter], [minter], []].map((contracts) =>
      contracts.length === 0 ? [{ targetContract: address(0xdead) }] : contracts.map((contract) => ({ targetContract: contract.address })),
    );
    for (const steps of stepsOf) {
      const campaign = await insertCampaign(db, { steps });
      keys.push(campaign.key);
      ids.set(campaign.publicId, campaign.key);
    }
  });
  afterAll(() => database.close());

  /** Per campaign key, the claims and USD in the window of `lengthMs` ending at `now`. */
  async function aggregate(now: number, lengthMs: number): Promise<Map<number, Totals>> {
    const rows = await queryRows<{ campaign_key: number; claims: number; usd: string }>(
      database.db,
      sql`SELECT campaign_key, count(*)::integer AS claims, sum(usd_value)::text AS usd FROM claims
           WHERE claimed_at > ${new Date(now - lengthMs)} AND claimed_at <= ${new Date(now)}
           GROUP BY campaign_key`,
    );
    return new Map(rows.map((row) => [row.campaign_key, { claims: row.claims, usd: Number(row.usd) }]));
  }

  it('for trending (1h, 24h) and explore contracts (6h, 24h, 7d), at the first request and a later one', async () => {
    await fc.assert(
      fc.asyncProperty(timedScenarioArbitrary(4, 3 * HOUR, HOUR), async ([laterMs, before, after]) => {
        await database.db.delete(claims);
        await insertTimedClaims(database.db, keys, T, before);
        let now = T;
        // A new app per case: a fresh claim-window snapshot, built by the first request.
        const app = await buildTestApp(database, {}, undefined, { clock: () => new Date(now) });
        try {
          await expectVolumes(app, now);
          await insertTimedClaims(database.db, keys, T, after);
          now = T + laterMs;
          await expectVolumes(app, now);
        } finally {
          await app.close();
        }
      }),
      { numRuns: 25 },
    );
  });

  /**
   * Writes as an indexer makes them, interleaved with the passing of time, each followed by a
   * check of every window: inserts (past, future, on an edge), deletes and updates of counted
   * claims, and two transactions that commit in the reverse order of their claims' ids (on
   * PostgreSQL, with two real connections: the claim of the one still open must not count, and
   * must count from the very next request after its commit).
   */
  it('stay equal while claims are inserted, deleted, updated and committed out of order, as time passes', async () => {
    const claimsArbitrary = (maxLength: number) => fc.array(timedClaimArbitrary(4, HOUR, HOUR), { minLength: 1, maxLength });
    const step = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), rows: claimsArbitrary(5) }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), row: timedClaimArbitrary(4, HOUR, HOUR) }),
      fc.record({ kind: fc.constant('out-of-order' as const), first: claimsArbitrary(3), second: claimsArbitrary(3) }),
      fc.record({ kind: fc.constant('time' as const), ms: fc.oneof(fc.integer({ min: 1, max: 2 * HOUR }), fc.constantFrom(HOUR, HOUR + 1)) }),
    );
    await fc.assert(
      fc.asyncProperty(claimsArbitrary(20), fc.array(step, { minLength: 1, maxLength: 6 }), async (initial, steps) => {
        await database.db.delete(claims);
        await insertTimedClaims(database.db, keys, T, initial);
        let now = T;
        const app = await buildTestApp(database, {}, undefined, { clock: () => new Date(now) });
        const pick = async (index: number) => {
          const ids = await queryRows<{ id: string }>(database.db, sql`SELECT id::text AS id FROM claims ORDER BY id`);
          return ids.length === 0 ? undefined : ids[index % ids.length]!.id;
        };
        try {
          await expectVolumes(app, now);
          for (const current of steps) {
            if (current.kind === 'insert') {
              await insertTimedClaims(database.db, keys, now, current.rows);
            } else if (current.kind === 'delete') {
              const id = await pick(current.pick);
              if (id !== undefined) await database.db.execute(sql`DELETE FROM claims WHERE id = ${id}`);
            } else if (current.kind === 'update') {
              const id = await pick(current.pick);
              if (id !== undefined) {
                await database.db.execute(
                  sql`UPDATE claims SET claimed_at = ${new Date(now + current.row.offsetMs)}, usd_value = ${usdText(current.row.usdMicros)}::numeric,
                             campaign_key = ${keys[current.row.campaign]!} WHERE id = ${id}`,
                );
              }
            } else if (current.kind === 'out-of-order') {
              await outOfOrder(now, current.first, current.second, () => expectVolumes(app, now));
            } else {
              now += current.ms;
            }
            await expectVolumes(app, now);
          }
        } finally {
          await app.close();
        }
      }),
      { numRuns: 15 },
    );
  });

  it('stops counting a deleted claim at once, and counts a claim committed by a transaction that began first', async () => {
    await database.db.delete(claims);
    const now = T;
    const app = await buildTestApp(database, {}, undefined, { clock: () => new Date(now) });
    const hourOf = async (key: number) => {
      const response = await app.inject('/reward-kit/trending?sortBy=1h&tokenWhitelist=false&pageSize=100');
      return response.json<{ trendingCampaigns: { id: string; usdDistributed1Hr: number }[] }>()
        .trendingCampaigns.find((entry) => ids.get(entry.id) === key)?.usdDistributed1Hr ?? 0;
    };
    try {
      await insertTimedClaims(database.db, keys, now, [{ campaign: 0, offsetMs: -60_000, usdMicros: 2_500_000 }]);
      expect(await hourOf(keys[0]!)).toBe(2.5);
      await database.db.execute(sql`DELETE FROM claims WHERE campaign_key = ${keys[0]!}`);
      expect(await hourOf(keys[0]!)).toBe(0);
      if (database.url) {
        let checked = false;
        await outOfOrder(
          now,
          [{ campaign: 1, offsetMs: -1000, usdMicros: 1_000_000 }],
          [{ campaign: 0, offsetMs: -2000, usdMicros: 3_000_000 }],
          async () => {
            expect(await hourOf(keys[2]!)).toBe(3);
            expect(await hourOf(keys[1]!)).toBe(0);
            checked = true;
          },
        );
        expect(checked).toBe(true);
        expect(await hourOf(keys[1]!)).toBe(1);
      }
    } finally {
      await app.close();
    }
  });

  /**
   * Transaction A inserts `first` and stays open; B inserts `second` (higher ids) and commits;
   * `whileOpen` runs; then A commits. With PGlite (one connection) the two commit in order.
   * A writes to campaigns 0 and 1, B to 2 and 3: a claim updates its incentive's totals, so two
   * transactions writing claims of one incentive take turns, as they would for an indexer.
   */
  async function outOfOrder(origin: number, firstClaims: TimedClaim[], secondClaims: TimedClaim[], whileOpen: () => Promise<void>) {
    const first = firstClaims.map((claim) => ({ ...claim, campaign: claim.campaign % 2 }));
    const second = secondClaims.map((claim) => ({ ...claim, campaign: 2 + (claim.campaign % 2) }));
    if (!database.url) {
      await insertTimedClaims(database.db, keys, origin, second);
      await whileOpen();
      await insertTimedClaims(database.db, keys, origin, first);
      return;
    }
    const a = new pg.Client({ connectionString: database.url });
    const b = new pg.Client({ connectionString: database.url });
    await Promise.all([a.connect(), b.connect()]);
    try {
      await a.query('BEGIN');
      await insertTimedClaimsOn(a, keys, origin, first);
      await b.query('BEGIN');
      await insertTimedClaimsOn(b, keys, origin, second);
      await b.query('COMMIT');
      await whileOpen();
      await a.query('COMMIT');
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  }


  async function expectVolumes(app: Awaited<ReturnType<typeof buildTestApp>>, now: number) {
    const day = await aggregate(now, CLAIM_WINDOWS['24h']);
    const hour = await aggregate(now, CLAIM_WINDOWS['1h']);
    for (const sortBy of ['1h', '24h'] as const) {
      const response = await app.inject(`/reward-kit/trending?sortBy=${sortBy}&tokenWhitelist=false&pageSize=100`);
      expect(response.statusCode, response.body).toBe(200);
      const entries = response.json<{ trendingCampaigns: { id: string; usdDistributed1Hr: number; usdDistributed24Hr: number }[] }>()
        .trendingCampaigns;
      const window = sortBy === '1h' ? hour : day;
      const expectedOrder = [...window.entries()]
        .filter(([, totals]) => totals.claims > 0)
        .sort(([keyA, a], [keyB, b]) => b.usd - a.usd || (idOf(keyA) < idOf(keyB) ? -1 : 1))
        .map(([key]) => key);
      expect(entries.map((entry) => ids.get(entry.id)), `trending ${sortBy} at T+${now - T} ms`).toEqual(expectedOrder);
      for (const entry of entries) {
        const key = ids.get(entry.id)!;
        expect(entry.usdDistributed1Hr, `1h USD of ${key}`).toBe(hour.get(key)?.usd ?? 0);
        expect(entry.usdDistributed24Hr, `24h USD of ${key}`).toBe(day.get(key)?.usd ?? 0);
      }
    }
    for (const timePeriod of ['6h', '24h', '7d'] as const) {
      const window = await aggregate(now, CLAIM_WINDOWS[timePeriod]);
      const response = await app.inject(`/explore/contracts?timePeriod=${timePeriod}`);
      expect(response.statusCode, response.body).toBe(200);
      const stats = Object.fromEntries(
        response.json<{ name: string; stats: { totalClaims: number; totalAmountClaimedUsd: number } }[]>().map((contract) => [
          contract.name,
          { claims: contract.stats.totalClaims, usd: contract.stats.totalAmountClaimedUsd },
        ]),
      );
      for (const [name, campaigns] of Object.entries(targets)) {
        const expected = await sumUsd(campaigns.map((index) => keys[index]!), now, CLAIM_WINDOWS[timePeriod]);
        const claimCount = campaigns.reduce((sum, index) => sum + (window.get(keys[index]!)?.claims ?? 0), 0);
        expect(stats[name], `${name} over ${timePeriod} at T+${now - T} ms`).toEqual({ claims: claimCount, usd: expected });
      }
      // Each order as a fresh sort of these figures would give it: the kept sorts follow the claims.
      for (const sortBy of ['most-completions', 'total-spend'] as const) {
        const sorted = await app.inject(`/explore/contracts?timePeriod=${timePeriod}&sortBy=${sortBy}`);
        type Row = { chainId: number; address: string; stats: { totalClaims: number; totalAmountClaimedUsd: number } };
        const rows = sorted.json<Row[]>();
        const value = (row: Row) => (sortBy === 'most-completions' ? row.stats.totalClaims : row.stats.totalAmountClaimedUsd);
        const expectedOrder = [...rows].sort(
          (a, b) => value(b) - value(a) || a.chainId - b.chainId || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
        );
        expect(rows, `${sortBy} over ${timePeriod} at T+${now - T} ms`).toEqual(expectedOrder);
      }
    }
  }

  /** The exact USD sum over several campaigns' claims in the window, as the route reports it. */
  async function sumUsd(campaignKeys: number[], now: number, lengthMs: number): Promise<number> {
    const [row] = await queryRows<{ usd: string }>(
      database.db,
      sql`SELECT coalesce(sum(usd_value), 0)::text AS usd FROM claims
           WHERE campaign_key = ANY(${sql.param(campaignKeys)}::integer[])
             AND claimed_at > ${new Date(now - lengthMs)} AND claimed_at <= ${new Date(now)}`,
    );
    return Number(row!.usd);
  }

  const idOf = (key: number) => [...ids.entries()].find(([, value]) => value === key)![0];
});
