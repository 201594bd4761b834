import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { TrendingList } from '../../src/schemas/trending.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address, erc20Incentive, insertActionTemplate, insertCampaign, insertClaim, insertToken } from '../helpers/factories.js';
import { expectToMatchSchema } from '../helpers/schema.js';

/**
 * The trending entry's fields mean what the public API means, so a frontend
 * written against it reads the same numbers (reward percentage, budgets in the token's smallest
 * unit, the project's slug) and never meets null where the public API sends a string.
 */
const NOW = new Date('2026-06-01T12:00:00.000Z');
const WAD = 10n ** 18n;
type Entry = TrendingList['trendingCampaigns'][number];

describe('trending entry fields', () => {
  let database: TestDatabase;
  let app: App;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    const usdc = await insertToken(db, { symbol: 'USDC', decimals: 6, priceUsd: '1' });
    const weth = await insertToken(db, { symbol: 'WETH', decimals: 18, priceUsd: '2000' });
    const { project, template } = await insertActionTemplate(db, { actionType: 'mint', category: 'nft' });
    const unknownToken = address(0xdead);

    const add = async (name: string, input: Parameters<typeof insertCampaign>[1]) => {
      const campaign = await insertCampaign(db, input);
      ids[name] = campaign.publicId;
      await insertClaim(db, { campaignKey: campaign.key, usdValue: '1', amount: '250000', claimedAt: new Date(NOW.getTime() - 60_000) });
    };
    // Points first (no token), then USDC twice and WETH once: the reward token is USDC, summed over both.
    await add('mixed', {
      actionTemplateId: template.id,
      nftImageUri: 'https://assets.example.com/nft/1.png',
      nftName: 'Edition #1',
      tokenImageUri: 'https://assets.example.com/tokens/usdc.png',
      incentives: [
        { type: 'PointsIncentive', params: { venue: address(0x9), selector: '0x12345678', reward: '10', limit: '5' } },
        erc20Incentive(usdc.address, '1000000', '100'),
        { type: 'ERC20VariableIncentive', params: { asset: usdc.address, reward: (WAD / 2n).toString(), limit: '5000000' } },
        erc20Incentive(weth.address, '1000', '7'),
      ],
    });
    // A variable reward on an unknown token, no template, no NFT, no token image.
    await add('bare', {
      incentives: [{ type: 'ERC20VariableIncentive', params: { asset: unknownToken, reward: (WAD / 10n).toString(), limit: '900000000' } }],
    });
    // Only points: no reward token at all.
    await add('points', {
      incentives: [{ type: 'PointsIncentive', params: { venue: address(0x9), selector: '0x12345678', reward: '10', limit: '5' } }],
    });
    ids.projectSlug = project.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    app = await buildTestApp(database, {}, undefined, { clock: () => NOW });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const entries = async (): Promise<Record<string, Entry>> => {
    const response = await app.inject('/reward-kit/trending?pageSize=100&tokenWhitelist=false');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<TrendingList>();
    expectToMatchSchema(body, 'TrendingList');
    return Object.fromEntries(body.trendingCampaigns.map((entry) => [Object.keys(ids).find((name) => ids[name] === entry.id)!, entry]));
  };

  it('gives rewardPercentage (and its alias, equal) for the variants that scale the claim amount only', async () => {
    const { mixed, bare } = await entries();
    const [points, fixed, variable, weth] = mixed!.incentives;
    for (const incentive of [points, fixed, weth]) {
      expect(incentive).not.toHaveProperty('rewardPercentage');
      expect(incentive).not.toHaveProperty('rebatePercentage');
    }
    expect(variable).toMatchObject({ rewardPercentage: 50, rebatePercentage: 50 });
    expect(bare!.incentives[0]).toMatchObject({ rewardPercentage: 10, rebatePercentage: 10 });
  });

  it("sums totalBudget and rewardsDistributed over the reward token's incentives, in its smallest unit", async () => {
    const { mixed, bare, points } = await entries();
    // USDC: 100 x 1 USDC fixed, plus a 5 USDC variable budget; the claim (0.25 USDC) was paid by the points incentive (position 0)...
    expect(mixed!.totalBudget).toBe(String(100n * 1_000_000n + 5_000_000n));
    expect(BigInt(mixed!.totalBudget)).toBe(105_000_000n);
    // ...so nothing of USDC is distributed yet.
    expect(mixed!.rewardsDistributed).toBe('0');
    expect(bare!.totalBudget).toBe('900000000');
    expect(bare!.rewardsDistributed).toBe('250000');
    expect(points!.totalBudget).toBe('0');
    expect(points!.rewardsDistributed).toBe('0');
  });

  it("names the template's project by its slug", async () => {
    const { mixed } = await entries();
    expect(mixed!.actionTemplate?.projectId).toBe(ids.projectSlug);
  });

  it('leaves out the strings it does not know instead of sending null', async () => {
    const { mixed, bare } = await entries();
    expect(mixed).toMatchObject({
      nftImageUri: 'https://assets.example.com/nft/1.png',
      nftName: 'Edition #1',
      tokenImageUri: 'https://assets.example.com/tokens/usdc.png',
      projectUrl: expect.stringMatching(/^https:/) as unknown,
    });
    for (const field of ['nftImageUri', 'nftName', 'tokenImageUri', 'projectUrl']) expect(bare).not.toHaveProperty(field);
    expect(bare!.incentives[0]).not.toHaveProperty('tokenSymbol');
    expect(bare!.incentives[0]).not.toHaveProperty('tokenImageUri');
    expect(mixed!.incentives[1]).toMatchObject({ tokenSymbol: 'USDC' });
    const text = JSON.stringify([mixed, bare]);
    for (const field of ['nftImageUri', 'nftName', 'tokenImageUri', 'projectUrl', 'tokenSymbol']) {
      expect(text).not.toContain(`"${field}":null`);
    }
  });
});
