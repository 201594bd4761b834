import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { campaigns, claims, tokenPrices } from '../../src/db/schema.js';
import { exportRecords } from '../../src/ingest/export.js';
import { MAX_PRICE_JUMP, writePrices } from '../../src/ingest/prices.js';
import { NATIVE_TOKEN_ADDRESS, type PriceQuote } from '../../src/prices/source.js';
import { buildTestApp } from '../helpers/app.js';
import { writeUnvaluedClaims } from '../helpers/unvalued-claims.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/**
 * Claims valued at their block's time from the price history, and the claims that waited for a
 * price valued when it arrives, through the write path: the totals, the documents and the in-memory
 * trending volumes equal plain SQL over the claims table afterwards.
 */
const T = new Date('2026-06-01T12:00:00.000Z');
const minutes = (n: number) => new Date(T.getTime() + n * 60_000);
const CHAIN = 8453;

describe('claims valued from the price history', () => {
  let database: TestDatabase;
  let asset: string;
  let campaign: { key: number; publicId: string };
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    // No imported price: the history holds only what a test writes.
    ({ address: asset } = await insertToken(database.db, { chainId: CHAIN, decimals: 6, priceUsd: null, isWhitelisted: true }));
    campaign = await insertCampaign(database.db, { chainId: CHAIN, incentives: [erc20Incentive(asset, '1000000', '1000')] });
    app = await buildTestApp(database, {}, undefined, { clock: () => minutes(30) });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });
  beforeEach(async () => {
    await database.db.delete(claims);
    await database.db.delete(tokenPrices);
  });

  const quote = (address: string, at: Date, priceUsd: string, source = 'defillama'): PriceQuote => ({ chainId: CHAIN, address, at, priceUsd, source });

  /** Claims as the indexer writes them: without values. */
  const writeClaims = (list: { amount: string; at: Date }[]) => writeUnvaluedClaims(database, CHAIN, campaign.publicId, list);

  const stored = () =>
    queryRows<{ usd: string; eth: string; pending: boolean }>(
      database.db,
      sql`SELECT usd_value::text AS usd, eth_value_wei::text AS eth, value_pending AS pending FROM claims ORDER BY id`,
    );

  it('values a claim with the prices at its time: USD from its asset, ETH from the native token', async () => {
    await writePrices(database, [quote(asset, minutes(-10), '2'), quote(asset, minutes(5), '3'), quote(NATIVE_TOKEN_ADDRESS, minutes(-5), '4000')]);
    await writeClaims([{ amount: '1500000', at: T }]);
    // 1.5 tokens × $2 (not the $3 of five minutes later); $3 / $4000 in wei.
    expect(await stored()).toEqual([{ usd: '3.000000', eth: '750000000000000', pending: false }]);
  });

  it('leaves a claim waiting when the only prices are from after it or more than two hours before it', async () => {
    await writePrices(database, [quote(asset, minutes(1), '2'), quote(asset, minutes(-121), '2'), quote(NATIVE_TOKEN_ADDRESS, minutes(-5), '4000')]);
    await writeClaims([{ amount: '1000000', at: T }]);
    expect(await stored()).toEqual([{ usd: '0.000000', eth: '0', pending: true }]);
  });

  it('prefers an imported price over a source’s at the same instant', async () => {
    await writePrices(database, [quote(asset, minutes(-1), '2', 'import'), quote(asset, minutes(-1), '2.5'), quote(NATIVE_TOKEN_ADDRESS, minutes(-1), '2000')]);
    await writeClaims([{ amount: '1000000', at: T }]);
    expect(await stored()).toEqual([{ usd: '2.000000', eth: '1000000000000000', pending: false }]);
  });

  it('values the waiting claims when their prices arrive, and the totals and trending follow', async () => {
    const before = await app.inject('/reward-kit/trending?sortBy=24h&pageSize=100');
    expect(before.statusCode).toBe(200);
    await writeClaims([
      { amount: '1000000', at: minutes(-30) },
      { amount: '2500000', at: minutes(-20) },
      { amount: '4000000', at: minutes(10) },
    ]);
    expect((await stored()).every((claim) => claim.pending)).toBe(true);

    // A late price for the first two (the third is an hour and a half after it, still within two
    // hours), then the native token's: the ETH values follow.
    const first = await writePrices(database, [quote(asset, minutes(-40), '1.5')]);
    expect(first).toMatchObject({ written: 1, refused: [], valued: 3 });
    expect(await stored()).toEqual([
      { usd: '1.500000', eth: '0', pending: true },
      { usd: '3.750000', eth: '0', pending: true },
      { usd: '6.000000', eth: '0', pending: true },
    ]);
    const second = await writePrices(database, [quote(NATIVE_TOKEN_ADDRESS, minutes(-60), '3000')]);
    expect(second.valued).toBe(3);
    expect(await stored()).toEqual([
      { usd: '1.500000', eth: '500000000000000', pending: false },
      { usd: '3.750000', eth: '1250000000000000', pending: false },
      { usd: '6.000000', eth: '2000000000000000', pending: false },
    ]);

    const [totals] = await queryRows<{ stored: string; summed: string }>(
      database.db,
      sql`SELECT (SELECT total_usd_claimed::text FROM incentives WHERE campaign_key = ${campaign.key}) AS stored,
                 (SELECT sum(usd_value)::text FROM claims WHERE campaign_key = ${campaign.key}) AS summed`,
    );
    expect(totals!.stored).toBe(totals!.summed);
    const [day] = await queryRows<{ usd: string }>(
      database.db,
      sql`SELECT sum(usd_value)::text AS usd FROM claims WHERE claimed_at > ${minutes(30 - 24 * 60)} AND claimed_at <= ${minutes(30)}`,
    );
    const after = await app.inject('/reward-kit/trending?sortBy=24h&pageSize=100');
    const entry = after.json<{ trendingCampaigns: { id: string; usdDistributed24Hr: number }[] }>().trendingCampaigns.find((e) => e.id === campaign.publicId);
    expect(entry?.usdDistributed24Hr).toBe(Number(day!.usd));
  });

  it('values waiting claims a chunk at a time, every one of them, with campaigns across chunk ends', async () => {
    // 4,500 claims of two campaigns, in chunks of 1,000: each campaign's claims span chunk ends.
    const other = await insertCampaign(database.db, { chainId: CHAIN, incentives: [erc20Incentive(asset, '1000000', '1000')] });
    const list = Array.from({ length: 2250 }, (_, n) => ({ amount: '1000000', at: new Date(T.getTime() + Math.floor(n / 3) * 1000) }));
    await writeClaims(list);
    await writeUnvaluedClaims(database, CHAIN, other.publicId, list);
    const result = await writePrices(database, [quote(asset, minutes(-1), '2'), quote(NATIVE_TOKEN_ADDRESS, minutes(-1), '2000')], { revalueChunk: 1000 });
    expect(result.valued).toBe(4500);
    const summary = await queryRows<{ campaign_key: number; pending: number; usd: string; stored: string }>(
      database.db,
      sql`SELECT c.campaign_key, count(*) FILTER (WHERE c.value_pending)::int AS pending, sum(c.usd_value)::text AS usd,
                 (SELECT i.total_usd_claimed::text FROM incentives AS i WHERE i.campaign_key = c.campaign_key AND i.position = 0) AS stored
            FROM claims AS c GROUP BY c.campaign_key ORDER BY c.campaign_key`,
    );
    expect(summary).toEqual([
      { campaign_key: campaign.key, pending: 0, usd: '4500.000000', stored: '4500.000000' },
      { campaign_key: other.key, pending: 0, usd: '4500.000000', stored: '4500.000000' },
    ]);
    await database.db.delete(campaigns).where(eq(campaigns.key, other.key));
  });

  it('values the claims a revaluation cut short left waiting when the same price is written again', async () => {
    const prices = [quote(asset, minutes(-10), '2'), quote(NATIVE_TOKEN_ADDRESS, minutes(-10), '4000')];
    await writePrices(database, prices);
    await writeClaims([{ amount: '1500000', at: T }]);
    // As a crash after the prices committed and before their revaluation would leave it.
    await database.db.execute(sql`UPDATE claims SET usd_value = 0, eth_value_wei = 0, value_pending = true`);
    const again = await writePrices(database, prices);
    expect(again).toMatchObject({ written: 0, valued: 1 });
    expect(await stored()).toEqual([{ usd: '3.000000', eth: '750000000000000', pending: false }]);
  });

  it('refuses a price that is not a positive decimal or jumps more than the bound from its neighbour, and stores the rest', async () => {
    await writePrices(database, [quote(asset, minutes(-60), '2')]);
    const result = await writePrices(database, [
      quote(asset, minutes(-50), '-1'),
      quote(asset, minutes(-45), 'NaN'),
      quote(asset, minutes(-40), '1e3'),
      quote(asset, minutes(-35), String(2 * MAX_PRICE_JUMP + 1)),
      quote(asset, minutes(-30), String(2 / MAX_PRICE_JUMP - 0.01)),
      quote(asset, new Date(Number.NaN), '2'),
      quote(asset, minutes(-20), '2.2'),
    ]);
    expect(result.written).toBe(1);
    expect(result.refused.map((refused) => refused.quote.priceUsd)).toEqual(['-1', 'NaN', '1e3', '2', String(2 * MAX_PRICE_JUMP + 1), String(2 / MAX_PRICE_JUMP - 0.01)]);
    const prices = await queryRows<{ price: string }>(database.db, sql`SELECT price_usd::text AS price FROM token_prices ORDER BY at`);
    expect(prices.map((row) => Number(row.price))).toEqual([2, 2.2]);
  });

  it('exports a waiting claim without values, so that importing it values it again', async () => {
    await writeClaims([{ amount: '1000000', at: T }]);
    const exported: unknown[] = [];
    await database.bulkTransaction(async (session) => {
      for await (const record of exportRecords((query) => session.query(query))) if (record.kind === 'claim') exported.push(record);
    });
    expect(exported).toHaveLength(1);
    expect(exported[0]).not.toHaveProperty('usdValue');
    expect(exported[0]).not.toHaveProperty('ethValueWei');
  });
});
