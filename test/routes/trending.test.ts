import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { claimSignatures } from '../../src/db/schema.js';
import { writePrices } from '../../src/ingest/prices.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import {
  address,
  erc20Incentive,
  insertAccessList,
  insertAccessListMembers,
  insertActionTemplate,
  insertCampaign,
  insertClaim,
  insertToken,
  insertUser,
} from '../helpers/factories.js';
import { expectToMatchSchema } from '../helpers/schema.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const SECOND = 1000;
const HOUR = 3_600_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const CLAIMANT = address(0xc1a1);
const CREATOR = address(0xc4ea);

interface Entry {
  id: string;
  status: string;
  accessStatus: string | null;
  signature: unknown;
  usdDistributed1Hr: number;
  usdDistributed24Hr: number;
  incentives: Record<string, unknown>[];
  actionTokenMetadata?: unknown;
  claimCount: number;
  [field: string]: unknown;
}

describe('GET /reward-kit/trending', () => {
  let database: TestDatabase;
  let app: App;
  let clock = NOW;
  const ids: Record<string, string> = {};
  const keys: Record<string, number> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    const usdc = await insertToken(db, { symbol: 'USDC', decimals: 6, priceUsd: '1' });
    const weth = await insertToken(db, { symbol: 'WETH', decimals: 18, priceUsd: '2000' });
    const { template: swap } = await insertActionTemplate(db, { actionType: 'swap', category: 'defi' });
    const { template: mint } = await insertActionTemplate(db, { actionType: 'mint', category: 'nft' });
    const member = await insertUser(db);
    const accessList = await insertAccessList(db, { ownerUserId: member.id });
    await insertAccessListMembers(db, accessList.id, [CLAIMANT]);

    const add = async (name: string, input: Parameters<typeof insertCampaign>[1]) => {
      const campaign = await insertCampaign(db, { incentives: [erc20Incentive(usdc.address)], ...input });
      ids[name] = campaign.publicId;
      keys[name] = campaign.key;
    };
    const claim = (name: string, usd: string, at: Date, claimant = address(0xbeef)) =>
      insertClaim(db, { campaignKey: keys[name]!, usdValue: usd, claimedAt: at, claimant });

    // The 1h edges: 59:59 ago counts, 1:00:01 ago and exactly 1:00:00 ago do not.
    await add('edges', { actionTemplateId: swap.id, actionTokenAddress: weth.address });
    await claim('edges', '10', ago(HOUR - SECOND));
    await claim('edges', '20', ago(HOUR + SECOND));
    await claim('edges', '40', ago(HOUR));
    // Ties on volume are broken by id.
    await add('tieA', { actionTemplateId: mint.id, creator: CREATOR });
    await add('tieB', { actionTemplateId: mint.id, creator: CREATOR });
    await claim('tieA', '50', ago(2 * HOUR));
    await claim('tieB', '50', ago(3 * HOUR));
    // Biggest in the day, nothing in the last hour.
    await add('whale', {});
    await claim('whale', '500.123456', ago(5 * HOUR));
    // Claims only outside the day, an inactive campaign, and a campaign without claims: none trends.
    await add('yesterday', {});
    await claim('yesterday', '900', ago(25 * HOUR));
    await add('ended', { endTime: ago(HOUR / 2) });
    await claim('ended', '900', ago(HOUR));
    await add('quiet', {});

    // The claimant's standing under each allow-list type.
    await add('allowListed', { allowList: { type: 'SimpleAllowList', addresses: [CLAIMANT] } });
    await add('allowUnlisted', { allowList: { type: 'SimpleAllowList', addresses: [address(0x1)] } });
    await add('denyListed', { allowList: { type: 'SimpleDenyList', addresses: [CLAIMANT] } });
    await add('denyUnlisted', { allowList: { type: 'SimpleDenyList', addresses: [] } });
    await add('open', { allowList: { type: 'OpenAllowList' } });
    await add('offchainMember', { allowList: { type: 'OffchainAccessList', accessListId: accessList.id } });
    const otherList = await insertAccessList(db, { ownerUserId: member.id });
    await add('offchainOther', { allowList: { type: 'OffchainAccessList', accessListId: otherList.id } });
    for (const name of ['allowListed', 'allowUnlisted', 'denyListed', 'denyUnlisted', 'open', 'offchainMember', 'offchainOther']) {
      await claim(name, '1', ago(10 * HOUR));
    }
    // The claimant claimed here, and holds unused signatures there.
    await claim('open', '1', ago(11 * HOUR), CLAIMANT);
    await db.insert(claimSignatures).values([
      { campaignKey: keys.allowListed!, claimant: CLAIMANT, incentiveId: 0, signature: '0xabc', referrer: address(0) },
      { campaignKey: keys.denyUnlisted!, claimant: CLAIMANT, incentiveId: 0, signature: '0xdef', referrer: address(0), used: true },
    ]);

    app = await buildTestApp(database, {}, undefined, { clock: () => clock });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const trending = async (query = '') => {
    const response = await app.inject(`/reward-kit/trending${query ? `?${query}` : ''}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<{ trendingCampaigns: Entry[] }>();
    expectToMatchSchema(body, 'TrendingList');
    return body.trendingCampaigns;
  };
  const nameOf = (entry: Entry) => Object.entries(ids).find(([, id]) => id === entry.id)?.[0];
  const names = async (query = '') => (await trending(query)).map(nameOf);
  const byName = async (query: string): Promise<Record<string, Entry | undefined>> =>
    Object.fromEntries((await trending(query)).map((entry): [string, Entry] => [nameOf(entry) ?? entry.id, entry]));

  it('counts a claim 59:59 ago for the hour, not one 1:00:01 or exactly 1:00:00 ago', async () => {
    const [first] = await trending('sortBy=1h');
    expect(nameOf(first!)).toBe('edges');
    expect(first!.usdDistributed1Hr).toBe(10);
    expect(first!.usdDistributed24Hr).toBe(70);
    expect(await names('sortBy=1h')).toEqual(['edges']);
  });

  it('ranks the day by USD, ties on id, and leaves out campaigns without claims in the day or not active', async () => {
    const ranked = await names('pageSize=100');
    const ties = ['tieA', 'tieB'].sort((a, b) => (ids[a]! < ids[b]! ? -1 : 1));
    expect(ranked.slice(0, 4)).toEqual(['whale', 'edges', ...ties]);
    expect(ranked).not.toContain('yesterday');
    expect(ranked).not.toContain('ended');
    expect(ranked).not.toContain('quiet');
    expect(ranked).toHaveLength(4 + 7);
  });

  it('pages through the ranking without overlap', async () => {
    const all = await names('pageSize=100');
    const paged = [];
    for (let page = 1; page <= 4; page++) paged.push(...(await names(`pageSize=3&page=${page}`)));
    expect(paged).toEqual(all);
    expect(await trending('pageSize=0')).toEqual([]);
  });

  it('reports status, accessStatus and signature for a claimant under each allow-list type', async () => {
    const entries = await byName(`claimantAddress=${CLAIMANT.toUpperCase().replace('0X', '0x')}&pageSize=100`);
    const access = (name: string) => entries[name]!.accessStatus;
    expect(access('allowListed')).toBe('allowed');
    expect(access('allowUnlisted')).toBe('not-allowed');
    expect(access('denyListed')).toBe('denied');
    expect(access('denyUnlisted')).toBe('allowed');
    expect(access('open')).toBe('allowed');
    expect(access('whale')).toBe('allowed'); // no allow list at all
    expect(access('offchainMember')).toBe('allowed');
    expect(access('offchainOther')).toBe('not-allowed');
    expect(entries.open!.status).toBe('claimed');
    expect(entries.allowListed!.status).toBe('claimable');
    expect(entries.allowListed!.signature).toEqual({ claimant: CLAIMANT, incentiveId: 0, signature: '0xabc', referrer: address(0) });
    expect(entries.denyUnlisted!.status).toBe('active'); // its only signature was used
    expect(entries.denyUnlisted!.signature).toBeNull();
  });

  it('reports no claimant fields without claimantAddress', async () => {
    for (const entry of await trending('pageSize=100')) {
      expect(entry.status).toBe('active');
      expect(entry.accessStatus).toBeNull();
      expect(entry.signature).toBeNull();
    }
  });

  it('filters by creator, action type and the shared campaign filters', async () => {
    expect((await names(`creatorAddress=${CREATOR}`)).sort()).toEqual(['tieA', 'tieB'].sort());
    expect(await names('actionType=swap')).toEqual(['edges']);
    expect((await names('actionType=swap,mint')).sort()).toEqual(['edges', 'tieA', 'tieB'].sort());
    const withoutMint = await names('excludeActionType=mint&pageSize=100');
    expect(withoutMint).toContain('whale'); // no template: not excluded
    expect(withoutMint).not.toContain('tieA');
    expect(await names('chainId=10')).toEqual([]);
  });

  it('adds actionTokenMetadata to swap campaigns only when asked', async () => {
    const plain = await byName('pageSize=100');
    expect(plain.edges).not.toHaveProperty('actionTokenMetadata');
    const asked = await byName('pageSize=100&includeTokenMetadata=true');
    expect(asked.edges!.actionTokenMetadata).toMatchObject({ tokenSymbol: 'WETH', decimals: 18, priceUsd: 2000 });
    expect(asked.whale).not.toHaveProperty('actionTokenMetadata');
  });

  it('leaves out the market figures nobody knows, never null (the public API has them optional)', async () => {
    const asked = await byName('pageSize=100&includeTokenMetadata=true');
    // WETH has a price and no market cap, 24-hour change, volume or holder count.
    expect(Object.keys(asked.edges!.actionTokenMetadata as object).sort()).toEqual(
      ['chainId', 'decimals', 'priceUsd', 'tokenContract', 'tokenImage', 'tokenSymbol'],
    );
  });

  it('flattens incentives with exact formatting and USD values', async () => {
    const { edges } = await byName('pageSize=100');
    expect(edges!.incentives).toEqual([
      expect.objectContaining({
        type: 'ERC20Incentive',
        rewardAmount: '1000000',
        rewardAmountFormatted: '1',
        maxReward: '1000000',
        rewardUsdValue: 1,
        maxRewardUsdValue: 1,
        tokenSymbol: 'USDC',
      }),
    ]);
    // A fixed reward scales nothing: no reward percentage, nor its alias.
    expect(edges!.incentives[0]).not.toHaveProperty('rewardPercentage');
    expect(edges!.incentives[0]).not.toHaveProperty('rebatePercentage');
    expect(edges!.claimCount).toBe(3);
    // In USDC's smallest unit: 100 claims of 1 USDC budgeted, 3 claims of 1 USDC paid.
    expect(edges!.totalBudget).toBe('100000000');
    expect(BigInt(edges!.totalBudget as string)).toBe(100_000_000n);
    expect(edges!.rewardsDistributed).toBe('3000000');
  });

  it('reflects claims made after the snapshot, late-arriving ones included, and claims ageing out', async () => {
    expect((await trending('sortBy=1h'))[0]!.usdDistributed1Hr).toBe(10);
    // A claim now, and one that arrives late: made 10 minutes ago, inserted after the snapshot.
    await insertClaim(database.db, { campaignKey: keys.whale!, usdValue: '0.000001', claimedAt: NOW });
    await insertClaim(database.db, { campaignKey: keys.quiet!, usdValue: '12.5', claimedAt: ago(HOUR / 6) });
    const hour = await byName('sortBy=1h');
    expect(hour.whale!.usdDistributed1Hr).toBe(0.000001);
    expect(hour.whale!.usdDistributed24Hr).toBe(500.123457);
    expect(hour.quiet!.usdDistributed1Hr).toBe(12.5);
    // Ten minutes later the 59:59-old claim has left the hour.
    clock = new Date(NOW.getTime() + 10 * 60 * SECOND);
    try {
      const later = await byName('sortBy=1h&pageSize=100');
      expect(later.edges).toBeUndefined();
      expect(later.quiet!.usdDistributed1Hr).toBe(12.5);
    } finally {
      clock = NOW;
    }
  });

  it.each([
    ['sortBy=7d', 'sortBy'],
    ['sortBy=24h&sortBy=1h', 'sortBy'],
    ['creatorAddress=0x12', 'creatorAddress'],
    ['claimantAddress=nope', 'claimantAddress'],
    ['actionType=Swap', 'actionType entry 1'],
    ['actionType=swap,', 'actionType entry 2'],
    ["excludeActionType=mint'--", 'excludeActionType entry 1'],
    ['includeTokenMetadata=yes', 'includeTokenMetadata'],
    [`targetContract=${address(1)}`, 'targetContract requires chainId'],
    ['tokens=1:0x1', 'tokens entry 1'],
    ['page=-1', 'page'],
    ['pageSize=101', 'pageSize'],
    ['period=1h', "unknown query parameter 'period'"],
  ])('?%s is a 400 naming %s', async (query, named) => {
    const response = await app.inject(`/reward-kit/trending?${query}`);
    expect(response.statusCode).toBe(400);
    expect(Object.keys(response.json<object>())).toEqual(['error']);
    expect(response.json<{ error: string }>().error).toContain(named);
  });

  // Last in this block: it moves WETH's price.
  it("follows a price source's quotes in actionTokenMetadata: the price now and its change over the day before", async () => {
    const [weth] = await queryRows<{ chain_id: number; address: string }>(database.db, sql`SELECT chain_id, address FROM tokens WHERE symbol = 'WETH'`);
    const quote = (at: Date, priceUsd: string) => ({ chainId: weth!.chain_id, address: weth!.address, at, priceUsd, source: 'defillama' });
    // The imported 2000 is in the history now; the source's quotes are later, and exactly a day apart
    // (one clock reading: two could differ by a millisecond, and the day before fall out of its window).
    const at = Date.now() + 60_000;
    await writePrices(database, [quote(new Date(at), '2100'), quote(new Date(at - 24 * HOUR), '2000')]);
    const asked = await byName('pageSize=100&includeTokenMetadata=true');
    expect(asked.edges!.actionTokenMetadata).toEqual({
      chainId: weth!.chain_id,
      tokenContract: weth!.address,
      tokenSymbol: 'WETH',
      tokenImage: asked.edges!.actionTokenMetadata && (asked.edges!.actionTokenMetadata as { tokenImage: string }).tokenImage,
      decimals: 18,
      priceUsd: 2100,
      priceChange24Hr: 5,
    });
  });
});

/**
 * More ranked campaigns than the first batch the filters are checked on (twice what the page
 * needs): a filtered page that starts in one batch and ends in the next, or lies wholly beyond the first.
 */
describe('GET /reward-kit/trending past the first batch of ranked campaigns', () => {
  const CAMPAIGNS = 240;
  const EVERY_THIRD = address(0x3333);
  const LAST_FORTY = address(0x4040);
  let database: TestDatabase;
  let app: App;
  /** Campaign IDs by rank: the i-th claimed 1000 - i USD in the last day. */
  const ranked: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    const usdc = await insertToken(db, { symbol: 'USDC', decimals: 6, priceUsd: '1' });
    for (let rank = 0; rank < CAMPAIGNS; rank++) {
      const owner = rank % 3 === 0 ? EVERY_THIRD : rank >= CAMPAIGNS - 40 ? LAST_FORTY : address(0x9999);
      const campaign = await insertCampaign(db, { owner, incentives: [erc20Incentive(usdc.address)] });
      await insertClaim(db, { campaignKey: campaign.key, usdValue: String(1000 - rank), claimedAt: ago(HOUR) });
      ranked.push(campaign.publicId);
    }
    app = await buildTestApp(database, {}, undefined, { clock: () => NOW });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const ids = async (query: string) => {
    const response = await app.inject(`/reward-kit/trending?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ trendingCampaigns: Entry[] }>().trendingCampaigns.map((entry) => entry.id);
  };

  it('pages a filter that passes campaigns in every batch without overlap or gap', async () => {
    const expected = ranked.filter((_, rank) => rank % 3 === 0);
    // The first batch (the top 100) holds 34 passing campaigns; page 5 of 10 (the 41st to 50th) lies in the second.
    expect(await ids(`owner=${EVERY_THIRD}&pageSize=10&page=5`)).toEqual(expected.slice(40, 50));
    const paged: string[] = [];
    for (let page = 1; page <= 10; page++) paged.push(...(await ids(`owner=${EVERY_THIRD}&pageSize=9&page=${page}`)));
    expect(paged).toEqual(expected);
  });

  it('finds a page that lies wholly beyond the first batch', async () => {
    const expected = ranked.filter((_, rank) => rank >= CAMPAIGNS - 40 && rank % 3 !== 0);
    expect(await ids(`owner=${LAST_FORTY}&pageSize=5&page=2`)).toEqual(expected.slice(5, 10));
    expect(await ids(`owner=${LAST_FORTY}&pageSize=100`)).toEqual(expected);
  });
});
