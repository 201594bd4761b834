import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { INCENTIVE_TYPES } from '../../src/db/schema.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address, type IncentiveInput, insertCampaign, insertClaim, insertToken } from '../helpers/factories.js';
import { expectToMatchSchema } from '../helpers/schema.js';

/** A uint256-sized value: 78 digits, below 2^256. */
const HUGE = `1${'2'.repeat(76)}9`;
const UNKNOWN_TOKEN = address(0xfeed);
const criteria = { criteriaType: 1, signature: `0x${'ab'.repeat(32)}`, fieldIndex: 2, targetContract: address(0x7a7a) };

describe('incentive variants', () => {
  let database: TestDatabase;
  let app: App;
  let token: Awaited<ReturnType<typeof insertToken>>;
  const campaignIds = new Map<string, string>();
  const variants: IncentiveInput[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    token = await insertToken(database.db, { symbol: 'USDC', decimals: 6, priceUsd: '1' });
    variants.push(
      { type: 'AllowListIncentive', params: { allowListAddress: address(0x11), limit: HUGE } },
      {
        type: 'CGDAIncentive',
        params: { asset: token.address, initialReward: '1000', rewardDecay: '10', rewardBoost: '1', totalBudget: HUGE },
      },
      { type: 'ERC20Incentive', params: { asset: token.address, strategy: 0, reward: '5000000', limit: '10' } },
      { type: 'PointsIncentive', params: { venue: address(0x12), selector: '0x12345678', reward: '100', limit: '1000' } },
      // An asset the service does not know: its metadata is null.
      { type: 'ERC20VariableIncentive', params: { asset: UNKNOWN_TOKEN, reward: '1', limit: HUGE } },
      {
        type: 'ERC20VariableCriteriaIncentive',
        params: { asset: token.address, reward: '2', limit: '1000', maxReward: '100', criteria, rebatePercentage: 12.5 },
      },
      {
        type: 'ERC20VariableCriteriaIncentiveV2',
        params: { asset: token.address, reward: '2', limit: '1000', maxReward: '100', criteria: { ...criteria, valueType: 1 } },
      },
      { type: 'ERC20PeggedIncentive', params: { asset: token.address, peg: address(0), reward: '3', limit: '900' } },
      {
        type: 'ERC20PeggedVariableCriteriaIncentive',
        params: { asset: token.address, peg: address(0), reward: '1', limit: '50', maxReward: '5', criteria: { ...criteria, criteriaType: 0 } },
      },
      {
        type: 'ERC20PeggedVariableCriteriaIncentiveV2',
        params: {
          asset: token.address,
          peg: address(0x13),
          reward: '1',
          limit: HUGE,
          maxReward: '5',
          criteria: { ...criteria, valueType: 0 },
          rebatePercentage: 5,
        },
      },
    );
    for (const incentive of variants) {
      const campaign = await insertCampaign(database.db, { incentives: [incentive] });
      campaignIds.set(incentive.type, campaign.publicId);
      if (incentive.type === 'ERC20Incentive') {
        await insertClaim(database.db, { campaignKey: campaign.key, amount: '5000000', usdValue: '5' });
      }
    }
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('covers all ten variants', () => {
    expect(variants.map((variant) => variant.type)).toEqual([...INCENTIVE_TYPES]);
  });

  const metadata = () => ({
    id: token.id,
    chainId: token.chainId,
    address: token.address,
    decimals: 6,
    name: token.name,
    symbol: 'USDC',
    imageUri: token.imageUri,
  });

  /** What the API adds to the stored fields: claim totals and token metadata, for the token-paying variants. */
  const expected = (incentive: IncentiveInput) => {
    const base = { type: incentive.type, ...incentive.params };
    switch (incentive.type) {
      case 'AllowListIncentive':
      case 'PointsIncentive':
      case 'CGDAIncentive':
        return base;
      case 'ERC20Incentive':
        // `limit` is the claims left: 10 less the one claim.
        return {
          ...base,
          limit: '9',
          claimedAmount: '5000000',
          totalClaims: '1',
          totalAmountClaimed: '5000000',
          remainingBalance: '45000000',
          metadata: metadata(),
        };
      case 'ERC20VariableIncentive':
        return { ...base, claimedAmount: '0', totalClaims: '0', totalAmountClaimed: '0', remainingBalance: HUGE, metadata: null };
      default:
        return {
          ...base,
          claimedAmount: '0',
          totalClaims: '0',
          totalAmountClaimed: '0',
          remainingBalance: String(incentive.params.limit),
          metadata: metadata(),
        };
    }
  };

  it('round-trips every variant unchanged through the list, 78-digit values and null metadata included', async () => {
    const response = await app.inject('/campaigns?tokenWhitelist=false&pageSize=100');
    const body = response.json<{ campaigns: { id: string; incentives: unknown[] }[] }>();
    expectToMatchSchema(body, 'CampaignList');
    for (const incentive of variants) {
      const item = body.campaigns.find((campaign) => campaign.id === campaignIds.get(incentive.type));
      expect(item?.incentives, incentive.type).toEqual([expected(incentive)]);
    }
  });

  it('round-trips every variant through the detail', async () => {
    for (const incentive of variants) {
      const response = await app.inject(`/campaigns/${campaignIds.get(incentive.type)}`);
      const body = response.json<{ incentives: unknown[] }>();
      expectToMatchSchema(body, 'CampaignDetail');
      expectToMatchSchema(body.incentives[0], incentive.type);
      expect(body.incentives, incentive.type).toEqual([expected(incentive)]);
    }
  });

  it('reports the unclaimed budget of priced tokens in USD, exactly', async () => {
    const response = await app.inject(`/campaigns/${campaignIds.get('ERC20Incentive')}`);
    // 10 claims of 5 USDC budgeted, one claimed: 45 USDC left at $1.
    expect(response.json<{ availableBudgetUsd: string }>().availableBudgetUsd).toBe('45.00');
  });

  it('counts a RAFFLE as funded with one prize, whatever its entries', async () => {
    const raffle = await insertCampaign(database.db, {
      incentives: [{ type: 'ERC20Incentive', params: { asset: token.address, strategy: 1, reward: '5000000', limit: '10' } }],
    });
    // Two entries, each a claim of amount 0.
    for (let entry = 0; entry < 2; entry++) await insertClaim(database.db, { campaignKey: raffle.key, amount: '0', usdValue: '0' });
    const response = await app.inject(`/campaigns/${raffle.publicId}`);
    expect(response.json()).toMatchObject({
      availableBudgetUsd: '5.00',
      incentives: [{ strategy: 1, limit: '8', totalClaims: '2', totalAmountClaimed: '0', remainingBalance: '5000000' }],
    });
  });
});
