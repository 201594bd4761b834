import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createCampaignsRepository } from '../../src/repositories/campaigns.repository.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

describe('campaigns repository: list items by keys (GET /explore)', () => {
  let database: TestDatabase;
  let first: { key: number; publicId: string };
  let second: { key: number; publicId: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await insertCampaign(database.db);
    second = await insertCampaign(database.db);
  });
  afterAll(() => database.close());

  const ids = (items: string[]) => items.map((item) => (JSON.parse(item) as { id: string }).id);

  it('returns the items in the order of the keys, leaving out keys of no campaign', async () => {
    const repository = createCampaignsRepository(database.db);
    const now = new Date();
    expect(ids(await repository.listItemsByKeys([second.key, 999_999, first.key], now))).toEqual([second.publicId, first.publicId]);
    expect(await repository.listItemsByKeys([999_999], now)).toEqual([]);
    expect(await repository.listItemsByKeys([], now)).toEqual([]);
  });
});

/**
 * The default list's keys come from campaign_list_keys() (src/db/sql/campaign_list_keys.sql), a
 * plan kept per server connection; every other list from a statement built per request. Both must
 * order and page exactly as the list's definition says: newest first with ties on public ID (C
 * collation), or active campaigns first, each half the same way.
 */
describe('campaign_list_keys(): the default list pages as the list is defined', () => {
  let database: TestDatabase;
  const NOW = new Date('2026-06-01T12:00:00.000Z');
  const HOUR = 3_600_000;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    const listed = await insertToken(db);
    const unlisted = await insertToken(db, { isWhitelisted: false });
    for (let n = 0; n < 24; n++) {
      await insertCampaign(db, {
        // Ties on block time.
        blockTimestamp: 1_780_000_000 + (n % 5),
        incentives: [erc20Incentive(n % 3 === 2 ? unlisted.address : listed.address)],
        startTime: n % 4 === 1 ? new Date(NOW.getTime() + HOUR) : null,
        endTime: n % 4 === 3 ? new Date(NOW.getTime() - HOUR) : null,
      });
    }
  });
  afterAll(() => database.close());

  /** Every campaign with what the order depends on, read plainly and ordered here. */
  const expectedKeys = async (whitelistedOnly: boolean, activeFirst: boolean, limit: number, offset: number) =>
    (await expectedRows(whitelistedOnly, activeFirst)).slice(offset, offset + limit).map((row) => row.key);
  const expectedRows = async (whitelistedOnly: boolean, activeFirst: boolean) => {
    const rows = await queryRows<{ key: number; block_timestamp: number; public_id: string; whitelisted: boolean; active: boolean }>(
      database.db,
      sql`SELECT key, block_timestamp::float8 AS block_timestamp, public_id,
                 pays_only_whitelisted_tokens AS whitelisted,
                 (start_time IS NULL OR start_time <= ${NOW}) AND (end_time IS NULL OR end_time > ${NOW}) AND has_budget_left AS active
            FROM campaigns`,
    );
    const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    return rows
      .filter((row) => row.whitelisted || !whitelistedOnly)
      .sort(
        (a, b) =>
          (activeFirst ? Number(b.active) - Number(a.active) : 0) ||
          b.block_timestamp - a.block_timestamp ||
          byBytes(a.public_id, b.public_id),
      );
  };

  it('matches a plain ordering for each sort, whitelist setting, page size and offset', async () => {
    const [state] = await queryRows<{ inactive: number; unlisted: number }>(
      database.db,
      sql`SELECT count(*) FILTER (WHERE NOT campaign_is_active_at(start_time, end_time, has_budget_left, ${NOW}))::integer AS inactive,
                 count(*) FILTER (WHERE NOT pays_only_whitelisted_tokens)::integer AS unlisted
            FROM campaigns`,
    );
    expect(state).toEqual({ inactive: 12, unlisted: 8 });
    for (const whitelistedOnly of [true, false]) {
      for (const activeFirst of [true, false]) {
        for (const [limit, offset] of [[10, 0], [1, 0], [3, 2], [7, 5], [5, 14], [100, 0], [4, 23], [4, 30], [0, 0]] as const) {
          const [row] = await queryRows<{ keys: number[] }>(
            database.db,
            sql`SELECT campaign_list_keys(${whitelistedOnly}, ${activeFirst}, ${limit}, ${offset}, ${NOW}) AS keys`,
          );
          expect(row!.keys, JSON.stringify({ whitelistedOnly, activeFirst, limit, offset })).toEqual(
            await expectedKeys(whitelistedOnly, activeFirst, limit, offset),
          );
        }
      }
    }
  });

  it('walks from any position to the campaigns after it, for each sort and whitelist setting', async () => {
    for (const whitelistedOnly of [true, false]) {
      for (const activeFirst of [true, false]) {
        const rows = await expectedRows(whitelistedOnly, activeFirst);
        for (const [index, row] of rows.entries()) {
          const rank = activeFirst && !row.active ? 1 : 0;
          for (const limit of [1, 4]) {
            const [found] = await queryRows<{ keys: number[] }>(
              database.db,
              sql`SELECT campaign_list_keys(${whitelistedOnly}, ${activeFirst}, ${limit}, 0, ${NOW}, ${rank}, ${row.block_timestamp}, ${row.public_id}) AS keys`,
            );
            const expected = rows.slice(index + 1, index + 1 + limit).map((next) => next.key);
            expect(found!.keys, JSON.stringify({ whitelistedOnly, activeFirst, index, limit })).toEqual(expected);
          }
        }
      }
    }
  });

  it('gives the list route the same walk through campaign_list_keys() as through the statement built per request', async () => {
    const repository = createCampaignsRepository(database.db);
    for (const sort of ['recently-deployed', 'active'] as const) {
      const walk = async (filters: { tokenWhitelist: boolean; distributionChannels?: string[] }) => {
        const pages = [await repository.listCampaigns(filters, sort, { limit: 3, offset: 0, count: true }, NOW)];
        while (pages.at(-1)!.more) pages.push(await repository.listCampaigns(filters, sort, { limit: 3, after: pages.at(-1)!.last!, count: false }, NOW));
        return pages;
      };
      const fast = await walk({ tokenWhitelist: true });
      expect(fast.flatMap((one) => one.items)).toEqual((await repository.listCampaigns({ tokenWhitelist: true }, sort, { limit: 100, offset: 0, count: true }, NOW)).items);
      expect(fast.length).toBeGreaterThan(4);
      expect(await walk({ tokenWhitelist: true, distributionChannels: [] })).toEqual(fast);
    }
  });

  it('gives the list route the same page as the statement built per request', async () => {
    const repository = createCampaignsRepository(database.db);
    for (const sort of ['recently-deployed', 'active'] as const) {
      for (const page of [{ limit: 5, offset: 0 }, { limit: 4, offset: 9 }]) {
        // Through campaign_list_keys(), and through the built statement: an empty channel filter is
        // a filter to the repository (so the fast path is not taken) but adds no condition.
        const fast = await repository.listCampaigns({ tokenWhitelist: true }, sort, { ...page, count: true }, NOW);
        const built = await repository.listCampaigns({ tokenWhitelist: true, distributionChannels: [] }, sort, { ...page, count: true }, NOW);
        expect(fast.items.length).toBe(page.limit);
        expect(fast).toEqual(built);
      }
    }
  });

  it('answers identical pages requested together as it answers one alone', async () => {
    const repository = createCampaignsRepository(database.db);
    for (const sort of ['recently-deployed', 'active'] as const) {
      const page = { limit: 5, offset: 3 };
      const alone = await repository.listCampaigns({ tokenWhitelist: false }, sort, { ...page, count: true }, NOW);
      // The first runs at once, the others share the query that starts when it ends (SharedReads).
      const together = await Promise.all(
        Array.from({ length: 6 }, (_, n) => repository.listCampaigns({ tokenWhitelist: false }, sort, { ...page, count: true }, new Date(NOW.getTime() + n))),
      );
      for (const answer of together) expect(answer).toEqual(alone);
    }
  });
});
