import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { ASSET, type Deployed, type LocalChain, TARGET, userAddress, VENUE } from '../../scripts/chain/local-chain.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createCampaigns, importRecords, indexOnce, MEMBERS, makeClaims, operatorRecords, quotePrices, startChain } from './chain-fixture.js';

/**
 * End to end on a real local chain (anvil from npm): the test contracts are deployed, two boosts
 * created and claimed from, the indexer runs once, and the API shows exactly that.
 */

const E18 = 10n ** 18n;

describe('indexer end to end on anvil', () => {
  let chain: LocalChain;
  let deployed: Deployed;
  let database: TestDatabase;
  let app: App;
  let id: (boost: number) => string;

  beforeAll(async () => {
    ({ chain, deployed } = await startChain());
    id = (boost) => `${chain.chainId}:${deployed.core.toLowerCase()}:${boost}`;
    database = await createTestDatabase();
    await importRecords(database, operatorRecords(chain.chainId));
    await quotePrices(database, operatorRecords(chain.chainId));
    await createCampaigns(chain, deployed);
    await makeClaims(chain, deployed);
    await indexOnce(chain, deployed.core, database);
    app = await buildTestApp(database);
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await chain?.stop();
  });

  it('GET /campaigns lists both boosts with what getBoost, the components and the calldata say', async () => {
    const response = await app.inject({ url: '/campaigns' });
    expect(response.statusCode).toBe(200);
    const { campaigns, totalCampaigns } = response.json<{ campaigns: Record<string, unknown>[]; totalCampaigns: number }>();
    expect(totalCampaigns).toBe(2);
    const byId = new Map(campaigns.map((campaign) => [campaign.id, campaign]));
    const first = byId.get(id(0))!;
    expect(first).toMatchObject({
      campaignIndex: '0',
      owner: chain.account.toLowerCase(),
      action: deployed.action.toLowerCase(),
      validator: deployed.core.toLowerCase(),
      budget: chain.account.toLowerCase(),
      protocolFee: '1500',
      maxParticipants: '100',
      incentiveCount: '2',
      chainId: chain.chainId,
      allowList: {
        contractAddress: deployed.allowList.toLowerCase(),
        owner: chain.account.toLowerCase(),
        type: 'SimpleAllowList',
        addresses: MEMBERS.map((member) => member.toLowerCase()).sort(),
      },
      usdSpend: 7,
      tokenSpend: 3.5,
      isActive: true,
    });
    expect(byId.get(id(1))).toMatchObject({
      protocolFee: '1000',
      maxParticipants: '0',
      allowList: { type: 'OpenAllowList', owner: '0x0000000000000000000000000000000000000000' },
      // The third incentive's type is unknown: it is skipped, not a crash.
      incentiveCount: '2',
      usdSpend: 0,
    });
  });

  it('GET /campaigns/{id} shows each incentive variant with its getters and its claims', async () => {
    const response = await app.inject({ url: `/campaigns/${id(0)}` });
    expect(response.statusCode).toBe(200);
    const campaign = response.json<Record<string, unknown>>();
    const [{ tx_hash: txHash } = { tx_hash: '0x' as const }] = await queryRows<{ tx_hash: `0x${string}` }>(database.db, sql`SELECT tx_hash FROM campaigns WHERE public_id = ${id(0)}`);
    const receipt = await chain.public.getTransactionReceipt({ hash: txHash });
    expect(campaign.createdAtBlockchainNumbers).toEqual({ [chain.chainId]: receipt.blockNumber.toString() });
    const block = await chain.public.getBlock({ blockNumber: receipt.blockNumber });
    expect(campaign.createdAt).toBe(new Date(Number(block.timestamp) * 1000).toISOString());
    expect(campaign.incentives).toMatchObject([
      {
        type: 'ERC20Incentive',
        asset: ASSET,
        strategy: 0,
        reward: E18.toString(),
        // Claims left: limit() less the two claims.
        limit: '999998',
        totalClaims: '2',
        totalAmountClaimed: (2n * E18).toString(),
      },
      {
        type: 'ERC20VariableCriteriaIncentiveV2',
        asset: ASSET,
        reward: (E18 / 2n).toString(),
        maxReward: (4n * E18).toString(),
        criteria: { criteriaType: 1, signature: `0x${'ef'.repeat(32)}`, fieldIndex: 3, targetContract: TARGET, valueType: 1 },
        totalClaims: '1',
        // 0.5 (WAD scalar) × 3 signed = 1.5, from the Claimed log.
        totalAmountClaimed: ((3n * E18) / 2n).toString(),
      },
    ]);
    expect(campaign.actionSteps).toEqual([
      expect.objectContaining({ signature: `0x${'ab'.repeat(31)}00`, signatureType: 'event', targetContract: TARGET, chainId: chain.chainId }),
      // The fourth step repeats the last one, as the SDK stores them; it is shown once.
      expect.objectContaining({ signature: `0x${'ab'.repeat(31)}01`, signatureType: 'function', parameters: { filterType: 0, fieldType: 1, fieldIndex: 1, filterData: '0x1234' } }),
    ]);
    expect(campaign.actionClaimant).toMatchObject({ signatureType: 'event', fieldIndex: 2, targetContract: TARGET, targetContractName: 'Target Protocol' });

    const second = (await app.inject({ url: `/campaigns/${id(1)}` })).json<{ incentives: unknown[] }>();
    expect(second.incentives).toEqual([
      { type: 'PointsIncentive', venue: VENUE, selector: '0xa9059cbb', reward: '7', limit: '1000000' },
      { type: 'AllowListIncentive', allowListAddress: deployed.allowList.toLowerCase(), limit: '1000' },
    ]);
  });

  it('stores one claim per BoostClaimed by its natural key, with the paid amount and its USD value', async () => {
    const claims = await queryRows<{ tx_hash: string; log_index: number; claimant: string; amount: string; usd_value: string; incentive_position: number; public_id: string }>(
      database.db,
      sql`SELECT k.tx_hash, k.log_index, k.claimant, k.amount::text, k.usd_value::text, k.incentive_position, c.public_id
            FROM claims AS k JOIN campaigns AS c ON c.key = k.campaign_key ORDER BY c.public_id, k.incentive_position, k.claimant`,
    );
    expect(claims.map(({ public_id, incentive_position, claimant, amount, usd_value }) => [public_id, incentive_position, claimant, amount, usd_value])).toEqual([
      [id(0), 0, userAddress(1), E18.toString(), '2.000000'],
      [id(0), 0, userAddress(2), E18.toString(), '2.000000'],
      [id(0), 1, userAddress(1), ((3n * E18) / 2n).toString(), '3.000000'],
      [id(1), 0, userAddress(3), '7', '0.000000'],
      [id(1), 1, userAddress(1), '0', '0.000000'],
    ]);
    for (const claim of claims) {
      const receipt = await chain.public.getTransactionReceipt({ hash: claim.tx_hash as `0x${string}` });
      const boostClaimed = receipt.logs.find((log) => log.logIndex === claim.log_index)!;
      expect(boostClaimed.address.toLowerCase()).toBe(deployed.core.toLowerCase());
    }
  });

  it('trending and explore contracts count the indexed claims', async () => {
    const trending = await app.inject({ url: '/reward-kit/trending?sortBy=24h' });
    expect(trending.statusCode).toBe(200);
    const entries = trending.json<{ trendingCampaigns: { id: string }[] }>().trendingCampaigns;
    expect(entries.map((entry) => entry.id)).toEqual([id(0), id(1)]);

    const contracts = await app.inject({ url: '/explore/contracts?timePeriod=24h' });
    expect(contracts.statusCode).toBe(200);
    expect(contracts.json()).toEqual([
      { chainId: chain.chainId, address: TARGET, name: 'Target Protocol', stats: { campaignCount: 2, totalClaims: 5, totalAmountClaimedUsd: 7 } },
    ]);
  });
});
