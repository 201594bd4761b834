import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import type { ActivityPage, ExploreList } from '../../src/schemas/explore.js';
import { generateDataset } from '../../src/seed/dataset.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectToMatchSchema } from '../helpers/schema.js';

/** GET /explore and GET /campaigns/{id}/activity on generated data, against plain SQL over the claims. */
const NOW = new Date('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;

describe('GET /explore and GET /campaigns/{id}/activity', () => {
  let database: TestDatabase;
  let app: App;
  const rows = <Row>(query: ReturnType<typeof sql>) => queryRows<Row>(database.db, query);

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 120, claims: 2500, seed: 29, now: NOW }));
    app = await buildTestApp(database, {}, undefined, { clock: () => NOW });
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const get = async <T>(url: string, schemaId: string): Promise<T> => {
    const response = await app.inject(url);
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    const body = response.json<T>();
    expectToMatchSchema(body, schemaId);
    return body;
  };
  const expectError = async (url: string, status: number, message: RegExp) => {
    const response = await app.inject(url);
    expect(response.statusCode, `${url}: ${response.body}`).toBe(status);
    expect(Object.keys(response.json())).toEqual(['error']);
    expect(response.json<{ error: string }>().error).toMatch(message);
  };

  describe('GET /explore', () => {
    const ranked = (measure: ReturnType<typeof sql>, hours: number, extra = sql``) =>
      rows<{ public_id: string }>(
        sql`SELECT c.public_id FROM campaigns AS c JOIN claims AS w ON w.campaign_key = c.key
             WHERE w.claimed_at > ${new Date(NOW.getTime() - hours * HOUR)} AND w.claimed_at <= ${NOW} ${extra}
             GROUP BY c.key ORDER BY ${measure} DESC, c.public_id COLLATE "C"`,
      ).then((found) => found.map((row) => row.public_id));

    it('ranks campaigns by claims in the period by default (7d), with the total of all pages', async () => {
      const expected = await ranked(sql`count(*)`, 168);
      const body = await get<ExploreList>('/explore', 'ExploreList');
      expect(body.totalCount).toBe(expected.length);
      expect(body.campaigns.map((campaign) => campaign.id)).toEqual(expected.slice(0, 10));
      const page3 = await get<ExploreList>('/explore?page=3&pageSize=7', 'ExploreList');
      expect(page3.campaigns.map((campaign) => campaign.id)).toEqual(expected.slice(14, 21));
    });

    it('ranks by USD claimed, over 24h or 6h, on chosen chains and by creator', async () => {
      const spend = await ranked(sql`sum(w.usd_value)`, 24);
      expect((await get<ExploreList>('/explore?sortBy=total-spend&timePeriod=24h&pageSize=100', 'ExploreList')).campaigns.map((c) => c.id)).toEqual(
        spend.slice(0, 100),
      );
      const six = await ranked(sql`count(*)`, 6, sql`AND c.chain_id IN (8453, 10)`);
      const body = await get<ExploreList>('/explore?timePeriod=6h&actionChainIds=8453,10&pageSize=100', 'ExploreList');
      expect(body.campaigns.map((c) => c.id)).toEqual(six);
      expect(body.totalCount).toBe(six.length);
      const [creator] = await rows<{ creator: string }>(sql`SELECT creator FROM campaigns GROUP BY creator ORDER BY count(*) DESC LIMIT 1`);
      const byCreator = await ranked(sql`count(*)`, 168, sql`AND c.creator = ${creator!.creator}`);
      expect((await get<ExploreList>(`/explore?userAddress=${creator!.creator}&pageSize=100`, 'ExploreList')).campaigns.map((c) => c.id)).toEqual(
        byCreator,
      );
    });

    it('lists every campaign newest first for recently-deployed', async () => {
      const expected = await rows<{ public_id: string }>(
        sql`SELECT public_id FROM campaigns ORDER BY block_timestamp DESC, public_id LIMIT 10`,
      );
      const [{ count } = { count: 0 }] = await rows<{ count: number }>(sql`SELECT count(*)::integer AS count FROM campaigns`);
      const body = await get<ExploreList>('/explore?sortBy=recently-deployed', 'ExploreList');
      expect(body.campaigns.map((c) => c.id)).toEqual(expected.map((row) => row.public_id));
      expect(body.totalCount).toBe(count);
    });

    it('refuses bad input', async () => {
      await expectError('/explore?timePeriod=1y', 400, /timePeriod/);
      await expectError('/explore?sortBy=newest', 400, /sortBy/);
      await expectError('/explore?actionChainIds=base', 400, /actionChainIds/);
      await expectError('/explore?userAddress=0x1', 400, /userAddress/);
      await expectError('/explore?pageSize=101', 400, /pageSize/);
    });
  });

  describe('GET /campaigns/{id}/activity', () => {
    it("pages a campaign's claims newest first, each with the incentive it paid, and counts them all", async () => {
      const [busy] = await rows<{ public_id: string; key: number }>(
        sql`SELECT c.public_id, c.key FROM campaigns AS c JOIN claims AS w ON w.campaign_key = c.key
             GROUP BY c.key HAVING count(DISTINCT w.incentive_position) > 1 ORDER BY count(*) DESC LIMIT 1`,
      );
      const claims = await rows<{ claimant: string; ts: string; tx_hash: string; incentive_position: number }>(
        sql`SELECT claimant, floor(extract(epoch FROM claimed_at))::bigint::text AS ts, tx_hash, incentive_position FROM claims
             WHERE campaign_key = ${busy!.key} ORDER BY claimed_at DESC, id DESC`,
      );
      const detail = (await app.inject(`/campaigns/${busy!.public_id}`)).json<{ incentives: Record<string, unknown>[] }>();
      const body = await get<ActivityPage>(`/campaigns/${busy!.public_id}/activity?pageSize=100`, 'ActivityPage');
      expect(body.totalActivityCount).toBe(claims.length);
      expect(body.activityEvents.map((event) => ({ ...event, incentives: event.incentives.map((incentive) => incentive.type) }))).toEqual(
        claims.slice(0, 100).map((claim) => ({
          claimant: claim.claimant,
          blockTimestamp: claim.ts,
          txHash: claim.tx_hash,
          incentives: [detail.incentives[claim.incentive_position]!.type],
        })),
      );
      // The incentive in the list shape, live totals included, as GET /campaigns shows it.
      const pages = await Promise.all(
        [1, 2].map(async (page) =>
          (await app.inject(`/campaigns?pageSize=100&page=${page}&tokenWhitelist=false`)).json<{ campaigns: { id: string; incentives: unknown[] }[] }>(),
        ),
      );
      const item = pages.flatMap((page) => page.campaigns).find((campaign) => campaign.id === busy!.public_id);
      expect(item).toBeDefined();
      expect(body.activityEvents[0]!.incentives[0]).toEqual(item!.incentives[claims[0]!.incentive_position]);
      const second = await get<ActivityPage>(`/campaigns/${busy!.public_id}/activity?page=2&pageSize=3`, 'ActivityPage');
      expect(second.activityEvents.map((event) => event.txHash)).toEqual(claims.slice(3, 6).map((claim) => claim.tx_hash));
    });

    it("keeps one claimant's claims, counting only those", async () => {
      const [pair] = await rows<{ public_id: string; key: number; claimant: string }>(
        sql`SELECT c.public_id, c.key, w.claimant FROM campaigns AS c JOIN claims AS w ON w.campaign_key = c.key
             GROUP BY c.key, w.claimant ORDER BY count(*) DESC, w.claimant LIMIT 1`,
      );
      const claims = await rows<{ tx_hash: string }>(
        sql`SELECT tx_hash FROM claims WHERE campaign_key = ${pair!.key} AND claimant = ${pair!.claimant} ORDER BY claimed_at DESC, id DESC`,
      );
      const body = await get<ActivityPage>(
        `/campaigns/${pair!.public_id}/activity?claimant=${pair!.claimant.toUpperCase().replace('0X', '0x')}&pageSize=100`,
        'ActivityPage',
      );
      expect(body.totalActivityCount).toBe(claims.length);
      expect(body.activityEvents.map((event) => event.txHash)).toEqual(claims.map((claim) => claim.tx_hash));
      expect(body.activityEvents.every((event) => event.claimant === pair!.claimant)).toBe(true);
      const empty = await get<ActivityPage>(`/campaigns/${pair!.public_id}/activity?pageSize=0`, 'ActivityPage');
      expect(empty.activityEvents).toEqual([]);
      expect(empty.totalActivityCount).toBeGreaterThanOrEqual(claims.length);
    });

    it('404s an unknown campaign and refuses bad input', async () => {
      await expectError('/campaigns/8453:0x0000000000000000000000000000000000000001:1/activity', 404, /not found/);
      await expectError('/campaigns/8453:0xnope:1/activity', 400, /id/);
      await expectError('/campaigns/8453:0x0000000000000000000000000000000000000001:1/activity?claimant=0x1', 400, /claimant/);
      await expectError('/campaigns/8453:0x0000000000000000000000000000000000000001:1/activity?pageSize=101', 400, /pageSize/);
    });
  });
});
