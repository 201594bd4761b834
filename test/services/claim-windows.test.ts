import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claims } from '../../src/db/schema.js';
import { CLAIM_WINDOWS, createClaimWindowsRepository, WINDOW_NAMES } from '../../src/repositories/claim-windows.repository.js';
import { parseMicros } from '../../src/services/amounts.js';
import { ClaimWindows } from '../../src/services/claim-windows.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign } from '../helpers/factories.js';
import { insertTimedClaims, timedScenarioArbitrary } from '../helpers/timed-claims.js';

const T = new Date('2026-06-01T12:00:00.000Z').getTime();
const HOUR = 3_600_000;

/**
 * The activity routes' volumes against a plain aggregation over the claims table: a snapshot at T,
 * then more claims (some made before T but inserted after it, some after T), then a later instant.
 */
describe('claim windows', () => {
  let database: TestDatabase;
  const keys: number[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    for (let index = 0; index < 4; index++) keys.push((await insertCampaign(database.db)).key);
  });
  afterAll(() => database.close());

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

  it('equal a plain aggregation at any instant after the snapshot', async () => {
    await fc.assert(
      fc.asyncProperty(timedScenarioArbitrary(4, 2 * HOUR, 3 * HOUR), async ([laterMs, before, after]) => {
        await database.db.delete(claims);
        await insertTimedClaims(database.db, keys, T, before);
        // A 2-hour horizon (four refreshes): the later instant, up to 2 hours on, is corrected from the
        // edge claims in memory; claims up to 3 hours ahead were in the future at the snapshot.
        const windows = new ClaimWindows(createClaimWindowsRepository(database.db), { refreshMs: HOUR / 2 });
        await windows.at(new Date(T));
        await insertTimedClaims(database.db, keys, T, after);
        const now = T + laterMs;
        const view = await windows.at(new Date(now));
        const expected = await plainAggregation(now);
        for (const key of keys) {
          for (const name of WINDOW_NAMES) {
            const actual = view.volume(key)?.windows[name] ?? { claims: 0, usdMicros: 0 };
            expect(actual, `campaign ${key}, ${name}`).toEqual(expected.get(`${key}/${name}`) ?? { claims: 0, usdMicros: 0 });
          }
        }
        // The ranking holds exactly the campaigns with claims in the window, by volume.
        for (const name of WINDOW_NAMES) {
          const ranked = [...view.ranked(name)].map((volume) => volume.key);
          const withClaims = keys.filter((key) => (expected.get(`${key}/${name}`)?.claims ?? 0) > 0);
          expect(new Set(ranked)).toEqual(new Set(withClaims));
          const usd = ranked.map((key) => expected.get(`${key}/${name}`)!.usdMicros);
          expect(usd).toEqual([...usd].sort((a, b) => b - a));
        }
      }),
      { numRuns: 40 },
    );
  });
});
