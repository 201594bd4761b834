import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { claims } from '../../src/db/schema.js';
import type { ActivityPage } from '../../src/schemas/explore.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign, insertClaim } from '../helpers/factories.js';
import { expectToMatchSchema } from '../helpers/schema.js';
import { expectRefusal } from '../helpers/refusal.js';

/**
 * GET /campaigns/{id}/activity walked by cursor: the claims after the last one a page returned, in
 * the same order, each once, while claims are written and removed; and what a page says of the next.
 */
const START = Date.parse('2026-11-01T00:00:00Z');

describe('GET /campaigns/{id}/activity by cursor', () => {
  let database: TestDatabase;
  let app: App;
  let cachedApp: App;
  let campaign: { key: number; publicId: string };
  let other: { key: number; publicId: string };
  let written = 0;

  /** Claims at whole seconds apart, with groups sharing an instant, so that ties on the time are walked by id. */
  const writeClaims = (count: number, campaignKey = campaign.key) =>
    Promise.all(
      Array.from({ length: count }, () => {
        written += 1;
        return insertClaim(database.db, { campaignKey, claimedAt: new Date(START + Math.floor(written / 3) * 1000) });
      }),
    );
  const ordered = async () =>
    (
      await queryRows<{ tx_hash: string }>(
        database.db,
        sql`SELECT tx_hash FROM claims WHERE campaign_key = ${campaign.key} AND NOT draw ORDER BY claimed_at DESC, id DESC`,
      )
    ).map((row) => row.tx_hash);

  beforeAll(async () => {
    database = await createTestDatabase();
    campaign = await insertCampaign(database.db);
    other = await insertCampaign(database.db);
    for (let round = 0; round < 4; round += 1) await writeClaims(15);
    await writeClaims(3, other.key);
    app = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '0' });
    cachedApp = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '60000' });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await cachedApp?.close();
    await database?.close();
  });

  const page = async (query: string, on = app) => {
    const response = await on.inject(`/campaigns/${campaign.publicId}/activity?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<ActivityPage>();
    expectToMatchSchema(body, 'ActivityPage');
    return { body, link: response.headers.link as string | undefined, txs: body.activityEvents.map((event) => event.txHash) };
  };
  const refused = (url: string, message: RegExp) => expectRefusal(app, url, 400, message);
  /** The cursor a Link header names: `<?cursor=…&pageSize=…>; rel="next"`. */
  const linked = (link: string | undefined) => {
    const match = /^<\?([^>]+)>; rel="next"$/.exec(link ?? '');
    expect(match, `Link: ${link}`).not.toBeNull();
    return new URLSearchParams(match![1]);
  };

  it('walks every claim once, in the order of the pages, from the Link of page 1 to a null nextCursor', async () => {
    const expected = await ordered();
    const first = await page('pageSize=7');
    expect(first.body.totalActivityCount).toBe(expected.length);
    expect(first.body).not.toHaveProperty('nextCursor');
    const seen = [...first.txs];
    let next = linked(first.link);
    expect(next.get('pageSize')).toBe('7');
    for (;;) {
      const { body, link, txs } = await page(next.toString());
      expect(body).not.toHaveProperty('totalActivityCount');
      seen.push(...txs);
      if (body.nextCursor === null) {
        expect(link).toBeUndefined();
        break;
      }
      expect(linked(link).get('cursor')).toBe(body.nextCursor);
      next = linked(link);
    }
    expect(seen).toEqual(expected);
  });

  it('returns every claim that existed from start to end exactly once while claims are written and removed, some at once with a page', async () => {
    const atStart = await ordered();
    const removable = new Set(atStart.filter((_, index) => index % 5 === 2));
    const first = await page('pageSize=6');
    const seen = [...first.txs];
    let cursor: string | null | undefined = linked(first.link).get('cursor');
    for (let step = 0; cursor; step += 1) {
      // Writes during each page: newer claims (before where the walk is), an older one (after it),
      // and removals of claims the walk has not reached yet and of some it has.
      const [current]: [Awaited<ReturnType<typeof page>>, ...unknown[]] = await Promise.all([
        page(`cursor=${cursor}&pageSize=6`),
        writeClaims(2),
        insertClaim(database.db, { campaignKey: campaign.key, claimedAt: new Date(START - (step + 1) * 1000) }),
        ...[...removable].slice(step * 2, step * 2 + 2).map((tx) => database.db.delete(claims).where(eq(claims.txHash, tx))),
      ]);
      seen.push(...current.txs);
      cursor = current.body.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    const atEnd = new Set(await ordered());
    const throughout = atStart.filter((tx) => atEnd.has(tx));
    expect(throughout.length).toBeGreaterThan(30);
    expect(seen.filter((tx) => atEnd.has(tx) && atStart.includes(tx))).toEqual(throughout);
  });

  it('counts every page with includeTotal=true, and keeps a page of 0 where it is', async () => {
    const first = await page('pageSize=4');
    const cursor = linked(first.link).get('cursor')!;
    const counted = await page(`cursor=${cursor}&pageSize=4&includeTotal=true`);
    expect(counted.body.totalActivityCount).toBe((await ordered()).length);
    const none = await page(`cursor=${cursor}&pageSize=0`);
    expect(none.txs).toEqual([]);
    expect(none.body.nextCursor).toBe(cursor);
    expect((await page(`cursor=${cursor}&pageSize=4`)).txs).toEqual(counted.txs);
  });

  it("keeps a claimant's walk to that claimant, and a kept answer keeps its Link", async () => {
    const [claimant] = await queryRows<{ claimant: string }>(database.db, sql`SELECT claimant FROM claims WHERE campaign_key = ${campaign.key} LIMIT 1`);
    await insertClaim(database.db, { campaignKey: campaign.key, claimant: claimant!.claimant, claimedAt: new Date(START - 99_000) });
    const first = await page(`claimant=${claimant!.claimant}&pageSize=1`);
    const next = linked(first.link);
    expect(next.get('claimant')).toBe(claimant!.claimant);
    const second = await page(next.toString());
    expect(second.body.activityEvents.every((event) => event.claimant === claimant!.claimant)).toBe(true);

    const fresh = await page('pageSize=3', cachedApp);
    const kept = await page('pageSize=3', cachedApp);
    expect(kept.link).toBe(fresh.link);
    expect(kept.link).toBeDefined();
  });

  it('refuses a cursor it did not give, one of another walk, and a cursor with a page', async () => {
    const base = `/campaigns/${campaign.publicId}/activity`;
    const cursor = linked((await page('pageSize=2')).link).get('cursor')!;
    await refused(`${base}?cursor=not*base64`, /cursor must be a cursor this service gave/);
    await refused(`${base}?cursor=${Buffer.from('v1.x.1.2').toString('base64url')}`, /cursor belongs to another list/);
    await refused(`${base}?cursor=${Buffer.from('v2.abc.1.2').toString('base64url')}`, /cursor is not one this service gave/);
    await refused(`${base}?cursor=${Buffer.from('v1.abc.1e5.2').toString('base64url')}`, /cursor is not one this service gave/);
    await refused(`${base}?cursor=AAAA`, /cursor is not one this service gave/);
    await refused(`/campaigns/${other.publicId}/activity?cursor=${cursor}`, /cursor belongs to another list/);
    await refused(`${base}?cursor=${cursor}&claimant=0x${'1'.repeat(40)}`, /cursor belongs to another list/);
    await refused(`${base}?cursor=${cursor}&page=2`, /cursor and page cannot be combined/);
    await refused(`${base}?includeTotal=maybe`, /includeTotal/);
  });
});
