import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { importNdjson } from '../../src/ingest/ndjson-source.js';
import { LIVE_WRITE_RECORDS } from '../../src/ingest/write.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';
import { claimRecord, hash, lines } from '../helpers/records.js';

/**
 * A small import reaches the API's claim volumes through the claim feed, claim by claim, as the
 * indexer's writes do; only an import above the live limit makes the replicas reload.
 */
const CHAIN = 8453;
const NOW = new Date('2026-11-20T12:00:00.000Z');

describe('claims an import writes, in the claim feed', () => {
  let database: TestDatabase;
  let app: App;
  let campaign: { key: number; publicId: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    const { address: asset } = await insertToken(database.db, { chainId: CHAIN, decimals: 6, priceUsd: '1', isWhitelisted: true });
    campaign = await insertCampaign(database.db, { chainId: CHAIN, incentives: [erc20Incentive(asset, '1000000', '1000')] });
    app = await buildTestApp(database, {}, undefined, { clock: () => NOW });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const reloads = async () => {
    const exposition = (await app.inject('/metrics')).body;
    return Number(/^claim_volume_loads_total\{reason="bulk_reload"\} (\d+)$/m.exec(exposition)?.[1] ?? 'NaN');
  };
  const trending24h = async () => {
    const response = await app.inject('/reward-kit/trending?sortBy=24h&pageSize=100');
    expect(response.statusCode).toBe(200);
    const entries = response.json<{ trendingCampaigns: { id: string; usdDistributed24Hr: number }[] }>().trendingCampaigns;
    return entries.find((entry) => entry.id === campaign.publicId)?.usdDistributed24Hr ?? 0;
  };
  const importClaims = (txByte: string, count: number, liveUpTo?: number) =>
    importNdjson(
      database,
      Readable.from([
        lines(
          Array.from({ length: count }, (_, logIndex) =>
            claimRecord(logIndex, { chainId: CHAIN, campaign: campaign.publicId, txHash: hash(txByte), usdValue: '1.5', claimedAt: '2026-11-20T10:00:00.000Z' }),
          ),
        ),
      ]),
      liveUpTo === undefined ? {} : { liveUpTo },
    );
  /** The feed's rows by kind: a claim added (sign 1) or a reload marker (no campaign). */
  const feedRows = () =>
    queryRows<{ marker: boolean; sign: number }>(database.db, sql`SELECT DISTINCT campaign_key IS NULL AS marker, sign FROM claim_changes ORDER BY 1, 2`);

  it(`records each claim of an import of at most ${LIVE_WRITE_RECORDS.toLocaleString('en-US')} records, and the volumes follow without a reload`, async () => {
    expect(await trending24h()).toBe(0);
    await database.db.execute(sql`DELETE FROM claim_changes`);
    await importClaims('31', 3);
    expect(await feedRows()).toEqual([{ marker: false, sign: 1 }]);
    expect(await queryRows(database.db, sql`SELECT 1 FROM claim_changes`)).toHaveLength(3);
    expect(await trending24h()).toBe(4.5);
    expect(await reloads()).toBe(0);
  });

  it('records one reload marker for a larger import, and every server reloads once', async () => {
    await database.db.execute(sql`DELETE FROM claim_changes`);
    await importClaims('32', 3, 2);
    expect(await feedRows()).toEqual([{ marker: true, sign: 0 }]);
    expect(await trending24h()).toBe(9);
    await vi.waitFor(async () => expect(await reloads()).toBe(1));
  });
});
