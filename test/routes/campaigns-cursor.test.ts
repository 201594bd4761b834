import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { campaigns } from '../../src/db/schema.js';
import type { CampaignList } from '../../src/schemas/campaigns.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';
import { expectToMatchSchema } from '../helpers/schema.js';
import { expectRefusal } from '../helpers/refusal.js';

/**
 * GET /campaigns walked by cursor, in both orders: the campaigns after the last one a page returned,
 * in the same order, each once, while campaigns are written and removed and while the clock passes
 * campaigns' start and end times; and what a page says of the next.
 */
const NOW = new Date('2026-11-01T12:00:00.000Z');
const HOUR = 3_600_000;
const T0 = 1_790_000_000;

describe('GET /campaigns by cursor', () => {
  let database: TestDatabase;
  let app: App;
  let cachedApp: App;
  let clock = NOW;
  let tokens: { base: string; optimism: string; unlisted: string };
  let written = 0;

  /**
   * Campaigns with block times in few values (ties, walked by public ID), on two chains (public IDs
   * `10:…` and `8453:…`), active, ended and not yet started, some paying a token off the whitelist.
   */
  const writeCampaigns = (count: number, blockTimestamp?: (n: number) => number, identifier?: (n: number) => string) =>
    Promise.all(
      Array.from({ length: count }, () => {
        written += 1;
        const n = written;
        const chainId = n % 4 === 0 ? 10 : 8453;
        return insertCampaign(database.db, {
          chainId,
          blockTimestamp: blockTimestamp?.(n) ?? T0 + (n % 6),
          ...(identifier ? { identifier: identifier(n) } : {}),
          incentives: [erc20Incentive(n % 7 === 3 ? tokens.unlisted : chainId === 10 ? tokens.optimism : tokens.base)],
          startTime: n % 5 === 2 ? new Date(NOW.getTime() + HOUR) : null,
          endTime: n % 3 === 1 ? new Date(NOW.getTime() + 2 * HOUR) : n % 3 === 2 ? new Date(NOW.getTime() - HOUR) : null,
        });
      }),
    );

  /** The list as SQL orders it: active at `at` first with `active`, then newest first, ties on public ID. */
  const ordered = async ({ active = false, whitelisted = true, chainId = undefined as number | undefined, activeOnly = false, at = NOW } = {}) =>
    (
      await queryRows<{ public_id: string }>(
        database.db,
        sql`SELECT public_id FROM campaigns
             WHERE (pays_only_whitelisted_tokens OR NOT ${whitelisted})
               AND (chain_id = ${chainId ?? null}::integer OR ${chainId ?? null}::integer IS NULL)
               AND (campaign_is_active_at(start_time, end_time, has_budget_left, ${at}) OR NOT ${activeOnly})
             ORDER BY CASE WHEN ${active} THEN NOT campaign_is_active_at(start_time, end_time, has_budget_left, ${at}) ELSE false END,
                      block_timestamp DESC NULLS LAST, public_id`,
      )
    ).map((row) => row.public_id);

  beforeAll(async () => {
    database = await createTestDatabase();
    tokens = {
      base: (await insertToken(database.db, { chainId: 8453 })).address,
      optimism: (await insertToken(database.db, { chainId: 10 })).address,
      unlisted: (await insertToken(database.db, { chainId: 8453, isWhitelisted: false })).address,
    };
    for (let round = 0; round < 3; round += 1) await writeCampaigns(12);
    // Statistics, as a live database has them: on tables never analyzed, the plans kept by the list's
    // functions are priced high enough for PostgreSQL to JIT-compile them on every call (~250 ms).
    await database.db.execute(sql`ANALYZE`);
    app = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '0' }, undefined, { clock: () => clock });
    cachedApp = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '60000' }, undefined, { clock: () => clock });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await cachedApp?.close();
    await database?.close();
  });

  const page = async (query: string, on = app) => {
    const response = await on.inject(`/campaigns?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<CampaignList>();
    expectToMatchSchema(body, 'CampaignList');
    return { body, link: response.headers.link as string | undefined, ids: body.campaigns.map((campaign) => campaign.id) };
  };
  const refused = (query: string, message: RegExp) => expectRefusal(app, `/campaigns?${query}`, 400, message);
  /** The query a Link header names: `<?cursor=…&pageSize=…&…>; rel="next"`. */
  const linked = (link: string | undefined) => {
    const match = /^<\?([^>]+)>; rel="next"$/.exec(link ?? '');
    expect(match, `Link: ${link}`).not.toBeNull();
    return new URLSearchParams(match![1]);
  };
  /**
   * Page 1 of `query`, then each page its Link names, up to the one whose nextCursor is null;
   * `during(step)` runs at once with each page after the first.
   */
  const walk = async (query: string, during: (step: number) => Promise<unknown> = async () => undefined) => {
    const first = await page(query);
    expect(Object.keys(first.body)).toEqual(['campaigns', 'totalCampaigns']);
    const seen = [...first.ids];
    const pages = [first];
    let next = first.link === undefined ? undefined : linked(first.link);
    for (let step = 0; next !== undefined; step += 1) {
      const [current] = await Promise.all([page(next.toString()), during(step)]);
      expect(current.body).not.toHaveProperty('totalCampaigns');
      seen.push(...current.ids);
      pages.push(current);
      if (current.body.nextCursor === null) {
        expect(current.link).toBeUndefined();
        break;
      }
      next = linked(current.link);
      expect(next.get('cursor')).toBe(current.body.nextCursor);
    }
    return { seen, pages };
  };

  it('walks each order, by index and by built statement, from the Link of page 1 to a null nextCursor, as SQL orders it', async () => {
    const cases: [string, Parameters<typeof ordered>[0]][] = [
      ['', {}],
      ['sortBy=active', { active: true }],
      ['tokenWhitelist=false', { whitelisted: false }],
      ['sortBy=active&tokenWhitelist=false', { active: true, whitelisted: false }],
      ['chainId=8453', { chainId: 8453 }],
      ['sortBy=active&chainId=8453', { active: true, chainId: 8453 }],
      ['sortBy=active&showActiveOnly=true', { activeOnly: true }],
    ];
    for (const [filters, expected] of cases) {
      for (const pageSize of [1, 4, 7]) {
        const { seen, pages } = await walk(`${filters}&pageSize=${pageSize}`);
        expect(seen, `${filters} pageSize=${pageSize}`).toEqual(await ordered(expected));
        expect(pages[0]!.body.totalCampaigns).toBe(seen.length);
        expect(pages.every((one) => one.ids.length <= pageSize)).toBe(true);
      }
    }
    // The order has ties to walk through, and both halves of `active`.
    const times = await queryRows<{ ties: number; active: number; inactive: number }>(
      database.db,
      sql`SELECT count(*)::integer - count(DISTINCT block_timestamp)::integer AS ties,
                 count(*) FILTER (WHERE campaign_is_active_at(start_time, end_time, has_budget_left, ${NOW}))::integer AS active,
                 count(*) FILTER (WHERE NOT campaign_is_active_at(start_time, end_time, has_budget_left, ${NOW}))::integer AS inactive
            FROM campaigns`,
    );
    expect(times[0]!.ties).toBeGreaterThan(25);
    expect(times[0]!.active).toBeGreaterThan(10);
    expect(times[0]!.inactive).toBeGreaterThan(10);
  }, 60_000);

  it('carries the filters, the sort and the page size in the Link, and keeps it in a kept answer', async () => {
    const first = await page('sortBy=active&chainId=8453&tokenWhitelist=false&pageSize=3');
    const next = linked(first.link);
    expect([...next.keys()].sort()).toEqual(['chainId', 'cursor', 'pageSize', 'sortBy', 'tokenWhitelist']);
    expect(Object.fromEntries([...next].filter(([name]) => name !== 'cursor'))).toEqual({
      chainId: '8453',
      pageSize: '3',
      sortBy: 'active',
      tokenWhitelist: 'false',
    });
    const second = await page(next.toString());
    expect(second.body.campaigns.every((campaign) => campaign.chainId === 8453)).toBe(true);

    const fresh = await page('pageSize=3', cachedApp);
    const kept = await page('pageSize=3', cachedApp);
    expect(kept.link).toBeDefined();
    expect(kept.link).toBe(fresh.link);
    const viaCursor = linked(fresh.link).toString();
    const keptCursorPage = await page(viaCursor, cachedApp);
    expect((await page(viaCursor, cachedApp)).link).toBe(keptCursorPage.link);
  });

  it("keeps the walk's first instant while the clock passes campaigns' start and end times", async () => {
    try {
      for (const query of ['sortBy=active', 'sortBy=active&showActiveOnly=true', 'sortBy=recently-deployed']) {
        clock = NOW;
        const expected = await ordered({ active: query === 'sortBy=active', activeOnly: query.includes('showActiveOnly') });
        const { seen, pages } = await walk(`${query}&pageSize=5`, async () => {
          // By the second page, campaigns ending at NOW + 2h have ended and those starting at NOW + 1h have started.
          clock = new Date(NOW.getTime() + 3 * HOUR);
        });
        expect(seen, query).toEqual(expected);
        const activeAtStart = new Set(await ordered({ activeOnly: true }));
        for (const one of pages) for (const campaign of one.body.campaigns) expect(campaign.isActive).toBe(activeAtStart.has(campaign.id));
      }
      // A new walk starts at the clock's instant, where the order differs.
      expect((await walk('sortBy=active&pageSize=50')).seen).toEqual(await ordered({ active: true, at: clock }));
      expect(await ordered({ active: true, at: clock })).not.toEqual(await ordered({ active: true }));
    } finally {
      clock = NOW;
    }
  }, 60_000);

  it.each([['recently-deployed'], ['active']])(
    'returns every campaign that existed from start to end exactly once while campaigns are written and removed (%s)',
    async (sortBy) => {
      const active = sortBy === 'active';
      const atStart = await ordered({ active });
      const removable = atStart.filter((_, index) => index % 6 === 4);
      const remove = (ids: string[]) => Promise.all(ids.map((id) => database.db.delete(campaigns).where(eq(campaigns.publicId, id))));
      const { seen } = await walk(`sortBy=${sortBy}&pageSize=5`, (step) =>
        Promise.all([
          // Newer campaigns (before the walk's position), older ones (after it), and ties on block
          // times the walk is passing, with public IDs before and after those it has seen.
          writeCampaigns(2, (n) => T0 + 100 + n),
          writeCampaigns(1, (n) => T0 - 100 - n),
          writeCampaigns(2, (n) => T0 + (n % 6), (n) => (n % 2 === 0 ? String(n) : `9${n}`)),
          remove(removable.slice(step * 2, step * 2 + 2)),
        ]),
      );
      expect(new Set(seen).size).toBe(seen.length);
      const atEnd = new Set(await ordered({ active }));
      const throughout = atStart.filter((id) => atEnd.has(id));
      expect(throughout.length).toBeGreaterThan(20);
      expect(atStart.length - throughout.length).toBeGreaterThan(3);
      expect(seen.filter((id) => atEnd.has(id) && atStart.includes(id))).toEqual(throughout);
    },
    60_000,
  );

  it('counts every page with includeTotal=true, and keeps a page of 0 where it is', async () => {
    const first = await page('sortBy=active&pageSize=4');
    const cursor = linked(first.link).get('cursor')!;
    const counted = await page(`sortBy=active&cursor=${cursor}&pageSize=4&includeTotal=true`);
    expect(Object.keys(counted.body)).toEqual(['campaigns', 'totalCampaigns', 'nextCursor']);
    expect(counted.body.totalCampaigns).toBe((await ordered({ active: true })).length);
    const uncounted = await page(`sortBy=active&cursor=${cursor}&pageSize=4`);
    expect(Object.keys(uncounted.body)).toEqual(['campaigns', 'nextCursor']);
    expect(uncounted.ids).toEqual(counted.ids);
    const none = await page(`sortBy=active&cursor=${cursor}&pageSize=0`);
    expect(none.ids).toEqual([]);
    expect(none.body.nextCursor).toBe(cursor);
    expect((await page(`sortBy=active&cursor=${cursor}&pageSize=4&page=1`)).ids).toEqual(counted.ids);

    const onlyTotal = await page('pageSize=0');
    expect(onlyTotal.body).toEqual({ campaigns: [], totalCampaigns: (await ordered()).length });
    expect(onlyTotal.link).toBeUndefined();
    expect((await ordered({ chainId: 10 })).length).toBeLessThan(100);
    const all = await page('pageSize=100&chainId=10');
    expect(all.link).toBeUndefined();
    expect(all.body).not.toHaveProperty('nextCursor');
  });

  it('refuses a cursor it did not give, one of another list, and a cursor with a page', async () => {
    const first = await page('sortBy=active&pageSize=2');
    const cursor = linked(first.link).get('cursor')!;
    const [version, tag, at, rank, blockTimestamp, publicId] = Buffer.from(cursor, 'base64url').toString('latin1').split('.');
    expect([version, at, rank]).toEqual(['v1', String(NOW.getTime()), '0']);
    const forged = (...fields: string[]) => Buffer.from([version, tag, ...fields].join('.')).toString('base64url');

    await refused('cursor=not*base64', /cursor must be a cursor this service gave/);
    await refused(`cursor=${'A'.repeat(257)}`, /cursor must be a cursor this service gave/);
    await refused(`sortBy=active&cursor=${Buffer.from(`v2.${tag}.${at}.${rank}.${blockTimestamp}.${publicId}`).toString('base64url')}`, /cursor is not one this service gave/);
    await refused(`sortBy=active&cursor=${forged(at!, '2', blockTimestamp!, publicId!)}`, /cursor is not one this service gave/);
    await refused(`sortBy=active&cursor=${forged(at!, rank!, '1.5', publicId!)}`, /cursor is not one this service gave/);
    await refused(`sortBy=active&cursor=${forged(at!, rank!, blockTimestamp!, publicId!.toUpperCase())}`, /cursor is not one this service gave/);
    await refused(`sortBy=active&cursor=${forged(at!, rank!, blockTimestamp!)}`, /cursor is not one this service gave/);
    await refused(`sortBy=active&cursor=${Buffer.from('v1.x.1.2').toString('base64url')}`, /cursor is not one this service gave/);
    for (const other of ['', 'sortBy=recently-deployed', 'sortBy=active&tokenWhitelist=false', 'sortBy=active&chainId=8453', 'sortBy=active&showActiveOnly=true', 'sortBy=active&actionTemplateOnly=false']) {
      await refused(`${other}&cursor=${cursor}`, /cursor belongs to another list/);
    }
    await refused(`sortBy=active&cursor=${cursor}&page=2`, /cursor and page cannot be combined/);
    await refused(`sortBy=active&cursor=${cursor}&includeTotal=maybe`, /includeTotal/);
    // Nor does a cursor of the list continue another operation's walk.
    const response = await app.inject(`/campaigns/${first.ids[0]}/activity?cursor=${cursor}`);
    expect(response.statusCode).toBe(400);
  });

  it('relies on block times that are never NULL (the order says NULLS LAST; the keyset bound would leave a NULL out)', async () => {
    const [campaign] = await queryRows<{ key: number }>(database.db, sql`SELECT key FROM campaigns LIMIT 1`);
    const error = await database.db
      .execute(sql`UPDATE campaigns SET block_timestamp = NULL WHERE key = ${campaign!.key}`)
      .then(() => undefined, (failure: unknown) => failure as { code?: string; cause?: { code?: string } });
    expect(error?.cause?.code ?? error?.code).toBe('23502');
  });
});
