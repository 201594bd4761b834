import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTrendingRepository, type EntryVersionRow } from '../../src/repositories/trending.repository.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken, randomAddress } from '../helpers/factories.js';

describe('trending repository: a batch of the ranking filtered, with the versions of its page', () => {
  let database: TestDatabase;
  let keys: number[];
  const now = new Date('2026-06-01T12:00:00Z');
  const hour = 3_600_000;
  const claimant = randomAddress();

  beforeAll(async () => {
    database = await createTestDatabase();
    const whitelisted = await insertToken(database.db);
    const unlisted = await insertToken(database.db, { isWhitelisted: false });
    const paying = (asset: string) => ({ incentives: [erc20Incentive(asset)] });
    const campaigns = [
      paying(whitelisted.address),
      { ...paying(whitelisted.address), startTime: new Date(now.getTime() + hour) },
      { ...paying(whitelisted.address), startTime: new Date(now.getTime() - hour), endTime: now },
      { ...paying(whitelisted.address), endTime: new Date(now.getTime() + 1) },
      { ...paying(whitelisted.address), startTime: now },
      paying(unlisted.address),
      { incentives: [erc20Incentive(whitelisted.address, '1000000', '0')] },
      paying(whitelisted.address),
      paying(unlisted.address),
      paying(whitelisted.address),
    ];
    const inserted = [];
    for (const input of campaigns) inserted.push(await insertCampaign(database.db, input));
    // A ranking's order, not the insertion order, and a key of no campaign.
    keys = [...inserted.map((campaign) => campaign.key).reverse(), 999_999];
  });
  afterAll(() => database.close());

  /** What a plain statement says: the keys that pass, in order, and the versions of the page among them. */
  async function expected(tokenWhitelist: boolean, page: { from: number; count: number }, who: string | undefined) {
    const rows = await queryRows<{ key: number }>(
      database.db,
      sql`SELECT key FROM campaigns
           WHERE key = ANY(${sql.param(keys)}::integer[])
             AND (NOT ${tokenWhitelist} OR pays_only_whitelisted_tokens)
             AND (start_time IS NULL OR start_time <= ${now}) AND (end_time IS NULL OR end_time > ${now}) AND has_budget_left`,
    );
    const passing = new Set(rows.map((row) => row.key));
    const inOrder = keys.filter((key) => passing.has(key));
    const slice = inOrder.slice(page.from, page.from + page.count);
    const versions = await queryRows<EntryVersionRow>(
      database.db,
      sql`SELECT * FROM trending_entry_versions(${sql.param(slice)}::integer[], ${who ?? null}::text)`,
    );
    return { passing: inOrder, versions };
  }

  it('passes the same campaigns with the same versions without request filters (one function call) as with them', async () => {
    const repository = createTrendingRepository(database.db);
    let checked = 0;
    for (const tokenWhitelist of [true, false]) {
      for (const page of [
        { from: 0, count: 10 },
        { from: 1, count: 2 },
        { from: 4, count: 10 },
        { from: 0, count: 0 },
      ]) {
        for (const who of [undefined, claimant]) {
          const want = await expected(tokenWhitelist, page, who);
          // No filter but the whitelist: trending_batch_versions().
          expect(await repository.passingWithVersions(keys, { tokenWhitelist }, now, page, who)).toEqual(want);
          // A filter every campaign here passes: the statement written by the repository.
          expect(await repository.passingWithVersions(keys, { tokenWhitelist, chainId: 8453 }, now, page, who)).toEqual(want);
          checked += want.passing.length;
        }
      }
    }
    // Some campaigns pass and some do not, under each setting.
    const all = await expected(false, { from: 0, count: 10 }, undefined);
    const whitelistedOnly = await expected(true, { from: 0, count: 10 }, undefined);
    expect(whitelistedOnly.passing.length).toBeGreaterThan(0);
    expect(whitelistedOnly.passing.length).toBeLessThan(all.passing.length);
    expect(all.passing.length).toBeLessThan(keys.length - 1);
    expect(checked).toBeGreaterThan(0);
  });

  it('answers identical batches requested together as it answers one alone, and different ones apart', async () => {
    const repository = createTrendingRepository(database.db);
    const page = { from: 1, count: 3 };
    for (const filters of [{ tokenWhitelist: false }, { tokenWhitelist: false, chainId: 8453 }]) {
      const want = await expected(false, page, claimant);
      // The first runs at once; the others share the statement that starts when it ends (SharedReads).
      const together = await Promise.all([
        ...Array.from({ length: 5 }, () => repository.passingWithVersions(keys, filters, now, page, claimant)),
        repository.passingWithVersions(keys, filters, now, page, undefined),
      ]);
      for (const answer of together.slice(0, 5)) expect(answer).toEqual(want);
      expect(together[5]).toEqual(await expected(false, page, undefined));
    }
  });
});
