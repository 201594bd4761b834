import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import { ingest } from '../../src/ingest/write.js';
import { createPriceJob } from '../../src/price-job/job.js';
import { createChainlinkSource } from '../../src/prices/chainlink.js';
import { NATIVE_TOKEN_ADDRESS } from '../../src/prices/source.js';
import { anvilBinary, deploy, type LocalChain, send, startAnvil } from '../../scripts/chain/local-chain.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/**
 * The price job with the Chainlink source: Chainlink's MockV3Aggregator on anvil prices the asset
 * and ether; a claim that waits is valued with the rounds of its time, the token's current price is
 * the latest round.
 */
describe.skipIf(anvilBinary() === null)('the price job reading Chainlink feeds', () => {
  let chain: LocalChain;
  let database: TestDatabase;
  let asset: string;
  let campaign: { key: number; publicId: string };
  let usdFeed: Address;
  let ethFeed: Address;
  const hourAgo = Math.floor(Date.now() / 1000) - 3600;

  beforeAll(async () => {
    chain = await startAnvil();
    database = await createTestDatabase();
    ({ address: asset } = await insertToken(database.db, { chainId: chain.chainId, decimals: 6, priceUsd: null }));
    campaign = await insertCampaign(database.db, { chainId: chain.chainId, incentives: [erc20Incentive(asset, '1000000', '1000')] });
    usdFeed = await deploy(chain, 'MockV3Aggregator', [8, 100_000_000n]);
    ethFeed = await deploy(chain, 'MockV3Aggregator', [8, 300_000_000_000n]);
    // A round from before the claim (the job asks for a quarter of an hour before it), and one after.
    await send(chain, usdFeed, 'MockV3Aggregator', 'updateRoundData', [1n, 150_000_000n, BigInt(hourAgo - 1800), BigInt(hourAgo - 1800)]);
    await send(chain, usdFeed, 'MockV3Aggregator', 'updateRoundData', [2n, 125_000_000n, BigInt(hourAgo + 1800), BigInt(hourAgo + 1800)]);
    await send(chain, ethFeed, 'MockV3Aggregator', 'updateRoundData', [1n, 300_000_000_000n, BigInt(hourAgo - 1800), BigInt(hourAgo - 1800)]);
  });
  afterAll(async () => {
    await database?.close();
    await chain?.stop();
  });

  it('values a waiting claim with the rounds of its time and moves the current price to the latest round', async () => {
    await ingest(
      database,
      memorySource([
        {
          kind: 'claim',
          chainId: chain.chainId,
          txHash: `0x${'1'.padStart(64, '0')}`,
          logIndex: 0,
          campaign: campaign.publicId,
          incentivePosition: 0,
          claimant: '0x00000000000000000000000000000000000000aa',
          amount: '2000000',
          claimedAt: new Date(hourAgo * 1000).toISOString(),
        },
      ]),
      { derived: 'live' },
    );
    const job = createPriceJob({
      database,
      sources: [
        createChainlinkSource({
          feeds: [
            { chainId: chain.chainId, token: asset, feed: usdFeed.toLowerCase() },
            { chainId: chain.chainId, token: NATIVE_TOKEN_ADDRESS, feed: ethFeed.toLowerCase() },
          ],
          clientFor: () => chain.public,
          logger: pino({ level: 'silent' }),
        }),
      ],
      settings: { pollMs: 60_000, hoursPerRound: 20, claimsPerLook: 1000, chains: [chain.chainId], baseBackoffMs: 1000, maxBackoffMs: 60_000, maxRetryAfterMs: 60_000, retryHoursAfterMs: 3_600_000 },
      logger: pino({ level: 'silent' }),
    });
    try {
      expect(await job.runOnce()).toMatchObject({ failed: [], refused: 0 });
    } finally {
      await job.close();
    }
    // 2 tokens at $1.50 (the round before the claim, not the $1.25 after it); $3 / $3,000 in wei.
    const [claim] = await queryRows<{ usd: string; eth: string; pending: boolean }>(
      database.db,
      sql`SELECT usd_value::text AS usd, eth_value_wei::text AS eth, value_pending AS pending FROM claims`,
    );
    expect(claim).toEqual({ usd: '3.000000', eth: '1000000000000000', pending: false });
    const [token] = await queryRows<{ price: string; source: string }>(
      database.db,
      sql`SELECT price_usd::text AS price, price_source AS source FROM tokens WHERE address = ${asset}`,
    );
    expect(token).toEqual({ price: '1.250000000000000000', source: 'chainlink' });
  });
});
