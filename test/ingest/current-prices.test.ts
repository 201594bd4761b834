import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { tokenPrices, tokens } from '../../src/db/schema.js';
import { exportRecords } from '../../src/ingest/export.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import { writePrices } from '../../src/ingest/prices.js';
import { ingest } from '../../src/ingest/write.js';
import type { PriceQuote } from '../../src/prices/source.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/**
 * A token's current price (budgets, actionTokenMetadata) follows the newest price a source quoted;
 * an imported price is the operator's and is not overwritten by an older quote, and an import that
 * gives no price leaves a source's price in place.
 */
const CHAIN = 8453;
const hoursAgo = (n: number) => new Date(Date.now() - n * 3_600_000);

describe('the current price follows the newest quote', () => {
  let database: TestDatabase;
  let app: App;
  let asset: string;
  let tokenId: string;
  let campaign: { key: number; publicId: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ address: asset, id: tokenId } = await insertToken(database.db, { chainId: CHAIN, decimals: 6, priceUsd: null }));
    // A budget of 1,000 tokens (1 token a claim, 1,000 claims), nothing claimed yet.
    campaign = await insertCampaign(database.db, { chainId: CHAIN, incentives: [erc20Incentive(asset, '1000000', '1000')] });
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });
  beforeEach(async () => {
    await database.db.delete(tokenPrices);
    await database.db.update(tokens).set({ priceUsd: null, priceSource: 'import', priceChange24hPct: null });
  });

  const quote = (at: Date, priceUsd: string, source = 'defillama'): PriceQuote => ({ chainId: CHAIN, address: asset, at, priceUsd, source });
  const current = async () =>
    (
      await queryRows<{ price: string | null; source: string; change: string | null }>(
        database.db,
        sql`SELECT price_usd::text AS price, price_source AS source, price_change_24h_pct::text AS change FROM tokens WHERE address = ${asset}`,
      )
    )[0];
  const budgetUsd = async () => {
    const response = await app.inject(`/campaigns/${campaign.publicId}`);
    expect(response.statusCode).toBe(200);
    return response.json<{ availableBudgetUsd: string | null }>().availableBudgetUsd;
  };
  const importToken = (priceUsd?: string) =>
    ingest(
      database,
      memorySource([
        { kind: 'token', chainId: CHAIN, address: asset, id: tokenId, name: 'Token', symbol: 'TK', decimals: 6, imageUri: 'https://example.com/t.png', ...(priceUsd ? { priceUsd } : {}) },
      ]),
      { derived: 'live' },
    );

  it('takes the newest quote, with its source and the change over the day before it, and the budget follows', async () => {
    expect(await budgetUsd()).toBeNull();
    await writePrices(database, [quote(hoursAgo(25), '2'), quote(hoursAgo(0.5), '2.5')]);
    expect(await current()).toEqual({ price: '2.500000000000000000', source: 'defillama', change: '25.0000' });
    expect(await budgetUsd()).toBe('2500.00');

    // An older quote (a backfill) does not move the current price.
    await writePrices(database, [quote(hoursAgo(3), '2.2')]);
    expect((await current())?.price).toBe('2.500000000000000000');
  });

  it('leaves the change as it was when the history has no price from a day before', async () => {
    await writePrices(database, [quote(hoursAgo(1), '4')]);
    expect(await current()).toEqual({ price: '4.000000000000000000', source: 'defillama', change: null });
  });

  it('keeps an imported price against an older quote, and a newer quote replaces it', async () => {
    await importToken('3');
    expect(await current()).toMatchObject({ price: '3.000000000000000000', source: 'import' });
    // The import is in the history at its own time.
    const history = await queryRows<{ source: string }>(database.db, sql`SELECT source FROM token_prices WHERE address = ${asset}`);
    expect(history.map((row) => row.source)).toEqual(['import']);

    await writePrices(database, [quote(hoursAgo(1), '2.9')]);
    expect(await current()).toMatchObject({ price: '3.000000000000000000', source: 'import' });
    await writePrices(database, [quote(new Date(Date.now() + 1000), '3.1')]);
    expect(await current()).toMatchObject({ price: '3.100000000000000000', source: 'defillama' });
  });

  it("an import without a price leaves a source's price, and export does not turn it into an imported one", async () => {
    await writePrices(database, [quote(hoursAgo(1), '5')]);
    await importToken();
    expect(await current()).toMatchObject({ price: '5.000000000000000000', source: 'defillama' });
    // Not recorded as an imported price either.
    const history = await queryRows<{ source: string }>(database.db, sql`SELECT source FROM token_prices WHERE address = ${asset}`);
    expect(history.map((row) => row.source)).toEqual(['defillama']);

    const exported: unknown[] = [];
    await database.bulkTransaction(async (session) => {
      for await (const record of exportRecords((query) => session.query(query))) if (record.kind === 'token') exported.push(record);
    });
    expect(exported).toEqual([expect.objectContaining({ address: asset, priceUsd: null })]);
  });
});
