import { eq, type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { claims } from '../../src/db/schema.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import type { Leaderboard, LeaderboardEntry } from '../../src/schemas/leaderboard.js';
import { generateDataset } from '../../src/seed/dataset.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign, insertClaim } from '../helpers/factories.js';
import { expectToMatchSchema } from '../helpers/schema.js';
import { expectRefusal } from '../helpers/refusal.js';

/**
 * GET /campaigns/{id}/leaderboard and GET /leaderboard against a plain SQL aggregation over the
 * claims table, for random scopes, windows and metrics, walked by page and by cursor, and while
 * claims are written, revalued and removed.
 */
const NOW = new Date('2026-11-20T12:30:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WINDOWS = { '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY, all: null } as const;
type Window = keyof typeof WINDOWS;
type By = 'usd' | 'claims';

describe('leaderboards', () => {
  let database: TestDatabase;
  let app: App;
  let busy: { key: number; public_id: string; chain_id: number; owner: string }[];
  let token: { chain_id: number; address: string };
  const rows = <Row>(query: SQL) => queryRows<Row>(database.db, query);

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 60, claims: 3000, seed: 43, now: NOW }));
    busy = await rows(
      sql`SELECT c.key, c.public_id, c.chain_id, c.owner FROM campaigns AS c JOIN claims AS w ON w.campaign_key = c.key
           GROUP BY c.key ORDER BY count(*) DESC, c.key LIMIT 6`,
    );
    [token] = await rows<{ chain_id: number; address: string }>(
      sql`SELECT c.chain_id, i.asset_address AS address FROM claims AS w
            JOIN incentives AS i ON i.campaign_key = w.campaign_key AND i.position = w.incentive_position
            JOIN campaigns AS c ON c.key = w.campaign_key
           WHERE i.asset_address IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1`,
    ) as [{ chain_id: number; address: string }];
    // Claims older than the generated week, so that 30d and all differ from 7d.
    for (const [n, campaign] of busy.slice(0, 3).entries()) {
      for (const days of [10, 20, 40, 400]) {
        await insertClaim(database.db, { campaignKey: campaign.key, claimedAt: new Date(NOW.getTime() - days * DAY - n * HOUR), usdValue: `${days}.25` });
      }
    }
    app = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '0' }, undefined, { clock: () => NOW });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const get = async (url: string) => {
    const response = await app.inject(url);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<Leaderboard>();
    expectToMatchSchema(body, 'Leaderboard');
    return { body, link: response.headers.link as string | undefined };
  };

  /** Every address's entry as plain SQL and a sort give it: ranked by the metric, ties sharing a rank, by address. */
  const expected = async (scope: SQL, window: Window, by: By): Promise<LeaderboardEntry[]> => {
    const span = WINDOWS[window];
    const since = span === null ? sql`` : sql`AND w.claimed_at > ${new Date(NOW.getTime() - span)}`;
    const board = await rows<{ address: string; claims: number; usd: string }>(sql`
      SELECT w.claimant AS address, count(*) FILTER (WHERE NOT w.draw)::integer AS claims, sum(w.usd_value)::text AS usd
        FROM claims AS w JOIN campaigns AS c ON c.key = w.campaign_key
        JOIN incentives AS i ON i.campaign_key = w.campaign_key AND i.position = w.incentive_position
       WHERE w.claimed_at <= ${NOW} ${since} AND ${scope}
       GROUP BY w.claimant HAVING count(*) FILTER (WHERE NOT w.draw) > 0`);
    const metric = (row: { claims: number; usd: string }) => (by === 'usd' ? micros(row.usd) : BigInt(row.claims));
    board.sort((a, b) => (metric(a) === metric(b) ? (a.address < b.address ? -1 : 1) : metric(a) > metric(b) ? -1 : 1));
    return board.map((row) => ({
      rank: board.findIndex((other) => metric(other) === metric(row)) + 1,
      address: row.address,
      claims: row.claims,
      usd: Number(row.usd),
    }));
  };

  /** Every entry of a leaderboard, walked from its first page by each answer's cursor. */
  const walk = async (path: string, query: string) => {
    const entries: LeaderboardEntry[] = [];
    let { body, link } = await get(`${path}?${query}&pageSize=37`);
    entries.push(...body.entries);
    while (body.nextCursor !== null) {
      expect(link).toBe(`<?${new URLSearchParams({ cursor: body.nextCursor, pageSize: '37', ...Object.fromEntries(new URLSearchParams(query)) }).toString()}>; rel="next"`);
      ({ body, link } = await get(`${path}?${query}&pageSize=37&cursor=${body.nextCursor}`));
      entries.push(...body.entries);
    }
    expect(link).toBeUndefined();
    return entries;
  };

  it('equals the plain aggregation for random scopes, windows and metrics, walked by cursor and by page', async () => {
    // All campaigns unfiltered over 24h and 7d are ranked from the claim volumes in memory; the rest by the database.
    const scopes: { path: string; query: string; where: SQL; windows?: Window[] }[] = [
      ...busy.slice(0, 4).map((campaign) => ({ path: `/campaigns/${campaign.public_id}/leaderboard`, query: '', where: sql`w.campaign_key = ${campaign.key}` })),
      { path: '/leaderboard', query: '', where: sql`true`, windows: ['24h', '7d', '30d', 'all'] },
      { path: '/leaderboard', query: `chainId=${busy[0]!.chain_id}`, where: sql`c.chain_id = ${busy[0]!.chain_id}` },
      { path: '/leaderboard', query: `owner=${busy[1]!.owner.toUpperCase().replace('0X', '0x')}`, where: sql`c.owner = ${busy[1]!.owner}` },
      {
        path: '/leaderboard',
        query: `tokens=${token.chain_id}:${token.address},1:0x0000000000000000000000000000000000000bad`,
        where: sql`c.chain_id = ${token.chain_id} AND i.asset_address = ${token.address}`,
      },
    ];
    let random = 11;
    const pick = <T>(list: readonly T[]) => list[(random = (random * 48271) % 2147483647) % list.length]!;
    for (const scope of scopes) {
      for (const [by, window] of (['usd', 'claims'] as const).flatMap((by) =>
        (scope.windows ?? [pick(Object.keys(WINDOWS) as Window[])]).map((window) => [by, window] as const),
      )) {
        const query = `${scope.query}${scope.query ? '&' : ''}window=${window}&by=${by}`;
        const all = await expected(scope.where, window, by);
        expect(all.length, `${scope.path}?${query}`).toBeGreaterThan(0);
        expect(await walk(scope.path, query)).toEqual(all);

        const { body } = await get(`${scope.path}?${query}&page=2&pageSize=5&includeTotal=true`);
        expect(body.entries).toEqual(all.slice(5, 10));
        expect(body.totalCount).toBe(all.length);
        expect(body.window).toBe(window);
        expect(body.by).toBe(by);
        expect(body.to).toBe(NOW.toISOString());
        expect(body.from).toBe(WINDOWS[window] === null ? null : new Date(NOW.getTime() - WINDOWS[window]).toISOString());

        const someone = pick(all);
        const mine = await get(`${scope.path}?${query}&pageSize=1&address=${someone.address.toUpperCase().replace('0X', '0x')}`);
        expect(mine.body.addressEntry).toEqual(someone);
        expect(mine.body.totalCount).toBeUndefined();
      }
    }
  });

  it('gives equal totals one rank and skips as many after them; an address without claims has none', async () => {
    const campaign = await insertCampaign(database.db);
    const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
    const usd = [['5', 3], ['9', 1], ['5', 4], ['5', 2], ['1.5', 5]] as const;
    for (const [value, n] of usd) await insertClaim(database.db, { campaignKey: campaign.key, claimant: address(n), claimedAt: new Date(NOW.getTime() - HOUR), usdValue: value });
    await insertClaim(database.db, { campaignKey: campaign.key, claimant: address(5), claimedAt: new Date(NOW.getTime() - 2 * HOUR), usdValue: '0' });
    const { body } = await get(`/campaigns/${campaign.publicId}/leaderboard?address=${address(77)}`);
    expect(body.entries.map((entry) => [entry.rank, entry.address, entry.usd])).toEqual([
      [1, address(1), 9],
      [2, address(2), 5],
      [2, address(3), 5],
      [2, address(4), 5],
      [5, address(5), 1.5],
    ]);
    expect(body.addressEntry).toEqual({ rank: null, address: address(77), claims: 0, usd: 0 });
    const byClaims = await get(`/campaigns/${campaign.publicId}/leaderboard?by=claims&pageSize=2`);
    expect(byClaims.body.entries.map((entry) => [entry.rank, entry.address, entry.claims])).toEqual([
      [1, address(5), 2],
      [2, address(1), 1],
    ]);
    // A claim in the future of the answer's instant, or before the window, does not count.
    await insertClaim(database.db, { campaignKey: campaign.key, claimant: address(6), claimedAt: new Date(NOW.getTime() + 1000), usdValue: '50' });
    await insertClaim(database.db, { campaignKey: campaign.key, claimant: address(6), claimedAt: new Date(NOW.getTime() - DAY), usdValue: '50' });
    expect((await get(`/campaigns/${campaign.publicId}/leaderboard?window=24h&address=${address(6)}`)).body.addressEntry!.rank).toBeNull();
  });

  it.each([
    ['a campaign (from the database)', false],
    ['all campaigns (from memory)', true],
  ])('is exact while claims are written at once with a read, and after a late price and a removed claim: %s', async (_, global) => {
    const campaign = busy[global ? 5 : 4]!;
    const path = global ? '/leaderboard?window=24h&pageSize=100' : `/campaigns/${campaign.public_id}/leaderboard?window=24h&pageSize=100`;
    const where = global ? sql`true` : sql`w.campaign_key = ${campaign.key}`;
    const [incentive] = await rows<{ position: number }>(sql`SELECT position FROM incentives WHERE campaign_key = ${campaign.key} ORDER BY position LIMIT 1`);
    for (let round = 0; round < 4; round += 1) {
      const before = await expected(where, '24h', 'usd');
      const [{ body }] = await Promise.all([
        get(path),
        // Three claims in one transaction, committed while the read runs.
        database.db.transaction(async (tx) => {
          for (let n = 0; n < 3; n += 1) {
            await insertClaim(tx, {
              campaignKey: campaign.key,
              incentivePosition: incentive!.position,
              claimant: `0x${(0xbeef00 + n).toString(16).padStart(40, '0')}`,
              // Enough to rank on the first page.
              usdValue: String(5000 + round * 10 + n),
              claimedAt: new Date(NOW.getTime() - (n * 3 + round) * HOUR),
            });
          }
        }),
      ]);
      const after = await expected(where, '24h', 'usd');
      // One snapshot: all of the concurrent claims or none of them.
      expect([before.slice(0, 100), after.slice(0, 100)]).toContainEqual(body.entries);
    }
    const [claim] = await rows<{ id: number }>(
      sql`SELECT id FROM claims WHERE campaign_key = ${campaign.key} AND claimed_at > ${new Date(NOW.getTime() - DAY)} AND NOT draw ORDER BY id LIMIT 1`,
    );
    await database.db.update(claims).set({ usdValue: '98765.654321' }).where(eq(claims.id, claim!.id));
    expect((await get(path)).body.entries).toEqual((await expected(where, '24h', 'usd')).slice(0, 100));
    await database.db.delete(claims).where(eq(claims.id, claim!.id));
    expect((await get(path)).body.entries).toEqual((await expected(where, '24h', 'usd')).slice(0, 100));
  });

  it('refuses what it cannot answer, saying why', async () => {
    const id = busy[0]!.public_id;
    const refused = (url: string, status: number, message: RegExp) => expectRefusal(app, url, status, message);
    const { body } = await get(`/campaigns/${id}/leaderboard?pageSize=2`);
    const cursor = body.nextCursor!;
    await refused(`/campaigns/${id}/leaderboard?window=1y`, 400, /window must be one of: 24h, 7d, 30d, all/);
    await refused('/leaderboard?by=volume', 400, /by must be one of: usd, claims/);
    await refused('/leaderboard?address=alice', 400, /address must be an address/);
    await refused('/leaderboard?tokens=8453:0x1', 400, /tokens entry 1 must be <chain_id>:<token_address>/);
    await refused(`/leaderboard?tokens=9999999999:${'0x'.padEnd(42, 'a')}`, 400, /tokens entry 1 has a chain id above/);
    await refused('/leaderboard?chainId=-1', 400, /chainId/);
    await refused(`/campaigns/${id}/leaderboard?chainId=1`, 400, /unknown query parameter 'chainId'/);
    await refused(`/campaigns/${id}/leaderboard?cursor=${cursor}&page=2`, 400, /cursor and page cannot be combined/);
    await refused(`/campaigns/${id}/leaderboard?cursor=${cursor}&window=24h`, 400, /cursor belongs to another list/);
    await refused(`/campaigns/${busy[1]!.public_id}/leaderboard?cursor=${cursor}`, 400, /cursor belongs to another list/);
    await refused(`/leaderboard?cursor=${cursor}`, 400, /cursor belongs to another list/);
    await refused(`/campaigns/${id}/leaderboard?cursor=bm9wZQ`, 400, /cursor is not one this service gave/);
    await refused(`/campaigns/${id}/leaderboard?cursor=${'%'}`, 400, /cursor/);
    await refused('/campaigns/8453:0x0000000000000000000000000000000000000001:1/leaderboard', 404, /not found/);
    await refused('/campaigns/8453:0xnope:1/leaderboard', 400, /id/);
    // The cursor continues the walk it came from; pageSize 0 answers only what was asked.
    const next = await get(`/campaigns/${id}/leaderboard?cursor=${cursor}&pageSize=2`);
    expect(next.body.entries[0]!.rank).toBeGreaterThanOrEqual(body.entries[1]!.rank!);
    const none = await get(`/campaigns/${id}/leaderboard?pageSize=0&includeTotal=true`);
    expect(none.body.entries).toEqual([]);
    expect(none.body.totalCount).toBeGreaterThan(0);
  });
});

const micros = (usd: string) => {
  const [whole = '0', fraction = ''] = usd.split('.');
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
};
