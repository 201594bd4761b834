import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { tokens } from '../../src/db/schema.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import {
  address,
  erc20Incentive,
  insertActionTemplate,
  insertCampaign,
  insertClaim,
  insertToken,
} from '../helpers/factories.js';
import { expectToMatchSchema } from '../helpers/schema.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
const T0 = 1_780_000_000;

const OWNER_A = address(0xaaa1);
const OWNER_B = address(0xaaa2);
const BUDGET_A = address(0xbbb1);
const BUDGET_B = address(0xbbb2);
const TARGET = address(0x7a7a);
const COLLECTION = address(0xc011);

interface ListBody {
  campaigns: Record<string, unknown>[];
  totalCampaigns: number;
}

describe('GET /campaigns and GET /campaigns/:id', () => {
  let database: TestDatabase;
  let app: App;
  let clock = NOW;
  const ids: Record<string, string> = {};
  const keys: Record<string, number> = {};
  let usdc: Awaited<ReturnType<typeof insertToken>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    usdc = await insertToken(db, { chainId: 8453, symbol: 'USDC', decimals: 6, priceUsd: '1' });
    const weth = await insertToken(db, { chainId: 10, symbol: 'WETH', decimals: 18, priceUsd: '3000' });
    const scam = await insertToken(db, { chainId: 8453, symbol: 'SCAM', isWhitelisted: false });
    const { template } = await insertActionTemplate(db);

    const add = async (name: string, input: Parameters<typeof insertCampaign>[1]) => {
      const campaign = await insertCampaign(db, input);
      ids[name] = campaign.publicId;
      keys[name] = campaign.key;
    };
    await add('alpha', {
      owner: OWNER_A,
      budget: BUDGET_A,
      blockTimestamp: T0 + 100,
      incentives: [erc20Incentive(usdc.address)],
      steps: [{ targetContract: TARGET }],
      distributionChannels: ['farcaster'],
      actionTemplateId: template.id,
      autocampaignId: 'ac-1',
    });
    await add('beta', {
      chainId: 10,
      owner: OWNER_B,
      budget: BUDGET_B,
      blockTimestamp: T0 + 200,
      incentives: [{ type: 'ERC20VariableIncentive', params: { asset: weth.address, reward: '1', limit: '10' } }],
      steps: [{ targetContract: COLLECTION, chainId: 10 }],
      distributionChannels: ['x', 'lens'],
    });
    await add('scammy', { blockTimestamp: T0 + 300, incentives: [erc20Incentive(scam.address)] });
    await add('ended', {
      blockTimestamp: T0 + 50,
      incentives: [erc20Incentive(usdc.address)],
      endTime: new Date(NOW.getTime() - HOUR),
    });
    await add('upcoming', {
      blockTimestamp: T0 + 40,
      incentives: [erc20Incentive(usdc.address)],
      startTime: new Date(NOW.getTime() + HOUR),
      endTime: new Date(NOW.getTime() + 48 * HOUR),
    });
    await add('exhausted', { blockTimestamp: T0 + 30, incentives: [erc20Incentive(usdc.address, '1000000', '1')] });
    await insertClaim(db, { campaignKey: keys.exhausted!, amount: '1000000', usdValue: '1', claimedAt: NOW });
    for (const name of ['tied1', 'tied2', 'tied3']) {
      await add(name, { blockTimestamp: T0 + 10, incentives: [erc20Incentive(usdc.address)] });
    }
    app = await buildTestApp(database, {}, undefined, { clock: () => clock });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const list = async (query = '') => {
    const response = await app.inject({ method: 'GET', url: `/campaigns${query ? `?${query}` : ''}` });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<ListBody>();
  };
  const namesOf = (body: ListBody) =>
    body.campaigns.map((item) => Object.entries(ids).find(([, id]) => id === item.id)?.[0] ?? String(item.id));
  /** Ties on block time are broken by ID; C collation compares bytes as JavaScript compares ASCII. */
  const tied = () => ['tied1', 'tied2', 'tied3'].sort((a, b) => (ids[a]! < ids[b]! ? -1 : 1));

  describe('list', () => {
    it('returns whitelisted campaigns newest first with the total, each item matching the contract', async () => {
      const body = await list();
      expect(namesOf(body)).toEqual(['beta', 'alpha', 'ended', 'upcoming', 'exhausted', ...tied()]);
      expect(body.totalCampaigns).toBe(8);
      expectToMatchSchema(body, 'CampaignList');
    });

    it('fills every list field from the stored campaign', async () => {
      const [beta] = (await list('chainId=10')).campaigns;
      expect(beta).toMatchObject({
        id: ids.beta,
        owner: OWNER_B,
        budget: BUDGET_B,
        chainId: 10,
        isActive: true,
        allowList: null,
        incentiveCount: '1',
        blockTimestamp: String(T0 + 200),
        createdAtBlockTimestamp: String(T0 + 200),
        actionSteps: [expect.objectContaining({ targetContract: COLLECTION, chainId: 10 })],
        incentives: [
          expect.objectContaining({
            type: 'ERC20VariableIncentive',
            claimedAmount: '0',
            totalClaims: '0',
            remainingBalance: '10',
            metadata: expect.objectContaining({ symbol: 'WETH', chainId: 10, decimals: 18 }) as unknown,
          }),
        ],
      });
    });

    it('shows hidden non-whitelisted campaigns with tokenWhitelist=false', async () => {
      const body = await list('tokenWhitelist=false');
      expect(namesOf(body)[0]).toBe('scammy');
      expect(body.totalCampaigns).toBe(9);
    });

    it.each([
      ['budgetAccount', `budgetAccount=${BUDGET_A}`, ['alpha']],
      ['budgetAccount list, any case', `budgetAccount=${BUDGET_B.toUpperCase().replace('0X', '0x')},%20${BUDGET_A}`, ['beta', 'alpha']],
      ['owner in upper case', `owner=${OWNER_A.toUpperCase().replace('0X', '0x')}`, ['alpha']],
      ['autocampaignId', 'autocampaignId=ac-1', ['alpha']],
      ['chainId', 'chainId=10', ['beta']],
      ['targetContract with chainId', `targetContract=${TARGET}&chainId=8453`, ['alpha']],
      ['targetContract on another chain', `targetContract=${TARGET}&chainId=10`, []],
      ['tokens: an incentive paying the token', `tokens=8453:${'USDC_ADDRESS'}`, 'usdc-campaigns'],
      ['tokens: the token on another chain', `tokens=10:${'USDC_ADDRESS'}`, []],
      ['tokens: either of two paying tokens, each on its own chain', `tokens=10:${'USDC_ADDRESS'},8453:${'USDC_ADDRESS'}`, 'usdc-campaigns'],
      ['tokens: a collection the steps target', `tokens=10:${COLLECTION}:collection`, ['beta']],
      ['tokens: either form', `tokens=10:${COLLECTION}:collection,8453:${TARGET}:collection`, ['beta', 'alpha']],
      ['distributionChannel', 'distributionChannel=lens', ['beta']],
      ['distributionChannel list, any case', 'distributionChannel=Farcaster,discord', ['alpha']],
      ['actionTemplateOnly=true', 'actionTemplateOnly=true', ['alpha']],
      ['showActiveOnly=true', 'showActiveOnly=true', ['beta', 'alpha', 'tied']],
      ['showActiveOnly=true with sortBy=active', 'showActiveOnly=true&sortBy=active', ['beta', 'alpha', 'tied']],
      ['combined filters', `chainId=8453&showActiveOnly=true&owner=${OWNER_A}`, ['alpha']],
      ['combined filters that exclude each other', `chainId=10&owner=${OWNER_A}`, []],
    ])('filters by %s', async (_label, query, expected) => {
      const body = await list(`${query.replaceAll('USDC_ADDRESS', usdc.address)}&pageSize=100`);
      const want =
        expected === 'usdc-campaigns'
          ? ['alpha', 'ended', 'upcoming', 'exhausted', ...tied()]
          : (expected as string[]).flatMap((name) => (name === 'tied' ? tied() : [name]));
      expect(namesOf(body)).toEqual(want);
      expect(body.totalCampaigns).toBe(want.length);
    });

    it('actionTemplateOnly=false keeps only custom campaigns', async () => {
      const body = await list('actionTemplateOnly=false&pageSize=100');
      expect(namesOf(body)).not.toContain('alpha');
      expect(body.totalCampaigns).toBe(7);
    });

    it('sortBy=active puts active campaigns first, newest first within each group', async () => {
      const body = await list('sortBy=active&pageSize=100');
      expect(namesOf(body)).toEqual(['beta', 'alpha', ...tied(), 'ended', 'upcoming', 'exhausted']);
      expect(body.campaigns.map((item) => item.isActive)).toEqual([true, true, true, true, true, false, false, false]);
    });

    it('sortBy=active pages across the boundary between active and inactive', async () => {
      const pages = [];
      for (let page = 1; page <= 3; page++) pages.push(...namesOf(await list(`sortBy=active&pageSize=3&page=${page}`)));
      expect(pages).toEqual(['beta', 'alpha', ...tied(), 'ended', 'upcoming', 'exhausted']);
    });

    it('pages never overlap or skip, even across equal block times', async () => {
      const all = namesOf(await list('pageSize=100'));
      const paged = [];
      for (let page = 1; page <= all.length + 1; page++) paged.push(...namesOf(await list(`pageSize=1&page=${page}`)));
      expect(paged).toEqual(all);
    });

    it('page=0 is page 1; pageSize=0 returns only the total; a page past the end is empty', async () => {
      expect(namesOf(await list('page=0&pageSize=2'))).toEqual(namesOf(await list('page=1&pageSize=2')));
      expect(await list('pageSize=0')).toEqual({ campaigns: [], totalCampaigns: 8 });
      expect(await list('page=500')).toEqual({ campaigns: [], totalCampaigns: 8 });
    });

    it('reports isActive around start, end and an exhausted budget', async () => {
      const body = await list('pageSize=100');
      const activity = Object.fromEntries(namesOf(body).map((name, index) => [name, body.campaigns[index]!.isActive]));
      expect(activity).toMatchObject({ alpha: true, ended: false, upcoming: false, exhausted: false });
    });

    it('keeps counts exact as the clock passes a start time and as data changes', async () => {
      expect((await list('showActiveOnly=true')).totalCampaigns).toBe(5);
      clock = new Date(NOW.getTime() + 2 * HOUR); // `upcoming` has started
      try {
        expect((await list('showActiveOnly=true')).totalCampaigns).toBe(6);
      } finally {
        clock = NOW;
      }
      expect((await list('showActiveOnly=true')).totalCampaigns).toBe(5);

      // A token leaving the whitelist hides its campaigns at once, and coming back shows them.
      await database.db.update(tokens).set({ isWhitelisted: false }).where(eq(tokens.address, usdc.address));
      try {
        expect((await list()).totalCampaigns).toBe(1);
      } finally {
        await database.db.update(tokens).set({ isWhitelisted: true }).where(eq(tokens.address, usdc.address));
      }
      expect((await list()).totalCampaigns).toBe(8);
    });

    it('reflects a new claim in the claim totals at once', async () => {
      const before = (await list(`owner=${OWNER_A}`)).campaigns[0]!;
      expect((before.incentives as Record<string, unknown>[])[0]).toMatchObject({ totalClaims: '0', claimedAmount: '0' });
      await insertClaim(database.db, { campaignKey: keys.alpha!, amount: '1000000', usdValue: '1.5', claimedAt: NOW });
      const after = (await list(`owner=${OWNER_A}`)).campaigns[0]!;
      expect((after.incentives as Record<string, unknown>[])[0]).toMatchObject({
        totalClaims: '1',
        claimedAmount: '1000000',
        totalAmountClaimed: '1000000',
        remainingBalance: '99000000',
      });
      expect(after.usdSpend).toBe(1.5);
      expect(after.tokenSpend).toBe(1);
    });

    it('costs the same number of queries for a page of 1 and a page of 100', async () => {
      const execute = vi.spyOn(database.db, 'execute');
      try {
        // Filters no earlier test used, so neither total is cached yet.
        await list('pageSize=1&tokenWhitelist=false&chainId=10');
        const forOne = execute.mock.calls.length;
        execute.mockClear();
        expect((await list('pageSize=100&tokenWhitelist=false&chainId=8453')).campaigns.length).toBeGreaterThan(5);
        expect(execute.mock.calls.length).toBe(forOne);
        expect(forOne).toBeLessThanOrEqual(2);
      } finally {
        execute.mockRestore();
      }
    });

    it('answers with JSON and serves HEAD', async () => {
      const response = await app.inject({ method: 'GET', url: '/campaigns' });
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const head = await app.inject({ method: 'HEAD', url: '/campaigns' });
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
    });
  });

  describe('detail', () => {
    const detail = (id: string) => app.inject({ method: 'GET', url: `/campaigns/${encodeURIComponent(id)}` });

    it('returns the detail object, matching the contract', async () => {
      const response = await detail(ids.alpha!);
      expect(response.statusCode).toBe(200);
      const body = response.json<Record<string, unknown>>();
      expectToMatchSchema(body, 'CampaignDetail');
      expect(body).toMatchObject({
        id: ids.alpha,
        owner: OWNER_A,
        budget: BUDGET_A,
        isActive: true,
        createdAt: new Date((T0 + 100) * 1000).toISOString(),
        startTime: null,
        endTime: null,
        // No allow list: open to everyone, reported as an OpenAllowList.
        allowList: { type: 'OpenAllowList', owner: OWNER_A, contractAddress: address(0), addresses: null },
        createdAtBlockchainNumbers: { 8453: expect.stringMatching(/^[0-9]+$/) as unknown },
      });
    });

    it('finds a campaign whatever the case of the address and leading zeros of the numbers', async () => {
      const [chain, core, identifier] = ids.alpha!.split(':');
      const response = await detail(`00${chain}:${core!.toUpperCase().replace('0X', '0x')}:000${identifier}`);
      expect(response.statusCode).toBe(200);
      expect(response.json<{ id: string }>().id).toBe(ids.alpha);
    });

    it('reports an ended campaign as inactive with its times', async () => {
      const body = (await detail(ids.ended!)).json<Record<string, unknown>>();
      expect(body.isActive).toBe(false);
      expect(body.endTime).toBe(new Date(NOW.getTime() - HOUR).toISOString());
    });

    it('answers 404 for a well-formed unknown ID', async () => {
      const id = `8453:${address(0xdead)}:1`;
      const response = await detail(id);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: `campaign ${id} not found` });
    });

    it('accepts a real-length ID of over 100 characters', async () => {
      const id = `8453:${address(0xdead)}:${'9'.repeat(78)}`;
      expect(id.length).toBeGreaterThan(100);
      expect((await detail(id)).statusCode).toBe(404);
    });

    it.each([
      ['not an ID', 'abc'],
      ['a short address', '8453:0x12:1'],
      ['a non-hex address', `8453:0x${'z'.repeat(40)}:1`],
      ['a 79-digit identifier', `8453:${address(1)}:${'1'.repeat(79)}`],
      ['a negative chain', `-1:${address(1)}:1`],
      ['SQL', `8453:${address(1)}:1' OR '1'='1`],
      ['a NUL byte', `8453:${address(1)}:1\u0000`],
      ['path traversal', '../../etc/passwd'],
    ])('answers 400 for %s', async (_label, id) => {
      const response = await detail(id);
      expect(response.statusCode).toBe(400);
      expect(response.json<{ error: string }>().error).toMatch(/^id must be/);
      expect(Object.keys(response.json<object>())).toEqual(['error']);
    });

    it('takes no query parameters', async () => {
      const response = await app.inject({ method: 'GET', url: `/campaigns/${ids.alpha}?verbose=1` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: "unknown query parameter 'verbose'" });
    });
  });

  describe('bad input to the list', () => {
    const long = 'a'.repeat(101);
    const many = (make: (i: number) => string) => Array.from({ length: 51 }, (_, i) => make(i)).join(',');
    // Test names stay short: the query is cut, the parameter named.
    it.each([
      ['page=x', 'page'],
      ['page=1e2', 'page'],
      ['page=0x10', 'page'],
      ['page=-1', 'page'],
      ['page=1.0', 'page'],
      ['page=', 'page'],
      ['page=100001', 'page'],
      ['page=1&page=2', 'page'],
      ['pageSize=101', 'pageSize'],
      ['pageSize=-1', 'pageSize'],
      ['pageSize=%2010', 'pageSize'],
      ['budgetAccount=0x12', 'budgetAccount'],
      [`budgetAccount=${BUDGET_A},nope`, 'budgetAccount entry 2'],
      [`budgetAccount=${many((i) => address(i))}`, 'budgetAccount'],
      ['owner=0x12', 'owner'],
      [`owner=${OWNER_A}&owner=${OWNER_B}`, 'owner'],
      ["owner=1'%20OR%20'1'='1", 'owner'],
      ['owner=%00', 'owner'],
      ['autocampaignId=', 'autocampaignId'],
      [`autocampaignId=${long}`, 'autocampaignId'],
      ['autocampaignId=%00', 'autocampaignId'],
      ['autocampaignId=ac%0A1', 'autocampaignId'],
      ['chainId=abc', 'chainId'],
      ['chainId=-1', 'chainId'],
      ['chainId=2147483648', 'chainId'],
      ['chainId=1e2', 'chainId'],
      [`targetContract=${TARGET}`, 'targetContract requires chainId'],
      ['targetContract=0x12&chainId=1', 'targetContract'],
      ['tokens=8453', 'tokens entry 1'],
      [`tokens=8453:${TARGET}:nft`, 'tokens entry 1'],
      [`tokens=9999999999:${TARGET}`, 'tokens entry 1'],
      [`tokens=${many((i) => `1:${address(i)}`)}`, 'tokens'],
      ['distributionChannel=a%20b', 'distributionChannel entry 1'],
      ["distributionChannel=x';DROP%20TABLE%20campaigns;--", 'distributionChannel entry 1'],
      ['distributionChannel=<script>alert(1)</script>', 'distributionChannel entry 1'],
      [`distributionChannel=${many((i) => `c${i}`)}`, 'distributionChannel'],
      ['sortBy=newest', 'sortBy'],
      ['sortBy=active&sortBy=active', 'sortBy'],
      ['tokenWhitelist=yes', 'tokenWhitelist'],
      ['tokenWhitelist=1', 'tokenWhitelist'],
      ['actionTemplateOnly=maybe', 'actionTemplateOnly'],
      ['showActiveOnly=TRUE', 'showActiveOnly'],
      ['pagesize=10', "unknown query parameter 'pagesize'"],
      ['<script>=1', "unknown query parameter '<script>'"],
    ])('?%.60s is a 400 naming %s', async (query, named) => {
      const response = await app.inject({ method: 'GET', url: `/campaigns?${query}` });
      expect(response.statusCode).toBe(400);
      const body = response.json<{ error: string }>();
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toContain(named);
      expect(body.error).not.toMatch(/\^|\$|\[a-f|SELECT|at .*\.ts/);
    });

    it('answers an over-long query string with 414', async () => {
      const response = await app.inject({ method: 'GET', url: `/campaigns?autocampaignId=${'a'.repeat(9000)}` });
      expect(response.statusCode).toBe(414);
    });
  });
});
