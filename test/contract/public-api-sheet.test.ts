import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { DEMO_CAMPAIGNS, DEMO_CLAIMS } from '../../src/demo.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import { DEFAULT_SEED, generateDataset } from '../../src/seed/dataset.js';
import { DEMO_USER_ADDRESS } from '../../src/seed/reference.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertApiToken } from '../helpers/factories.js';
import { SHEET } from './public-api-sheet.js';

/**
 * A client written from the public API sheet (./public-api-sheet.ts, its own schemas, nothing from
 * src/schemas): every answer of all eighteen operations on the demo data must pass.
 */
const NOW = new Date('2026-11-20T12:00:00Z');

describe('a client written from the public API sheet', () => {
  let database: TestDatabase;
  let app: App;
  let token: string;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validators = new Map<string, ValidateFunction>(Object.entries(SHEET).map(([id, schema]) => [id, ajv.compile(schema)]));
  const seen = new Map<string, number>();

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: DEMO_CAMPAIGNS, claims: DEMO_CLAIMS, seed: DEFAULT_SEED, now: NOW }));
    const [user] = await queryRows<{ id: string }>(database.db, sql`SELECT id::text FROM users WHERE address = ${DEMO_USER_ADDRESS}`);
    ({ token } = await insertApiToken(database.db, user!.id));
    app = await buildTestApp(database, {}, undefined, { clock: () => NOW });
  }, 120_000);
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const call = async (operationId: string, url: string, auth = false): Promise<unknown> => {
    const response = await app.inject({ url, headers: auth ? { authorization: `Bearer ${token}` } : {} });
    expect(response.statusCode, `${url}: ${response.body.slice(0, 300)}`).toBe(200);
    const body: unknown = response.json();
    const validate = validators.get(operationId)!;
    expect(validate(body), `${operationId} ${url}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    seen.set(operationId, (seen.get(operationId) ?? 0) + 1);
    return body;
  };
  const ids = (query: ReturnType<typeof sql>) => queryRows<{ id: string }>(database.db, query).then((rows) => rows.map((row) => row.id));

  it('refuses what the sheet refuses: the trending fields of old, a served e-mail, an unknown field', () => {
    const entry = (overrides: Record<string, unknown>) => ({
      id: '1:0x0000000000000000000000000000000000000001:1', chainId: 1, incentives: [], actionTemplate: null, status: 'active',
      txHash: '0x', campaignName: null, blockTimestamp: '1', startTime: null, endTime: null, claimCount: 0, totalBudget: '0',
      rewardsDistributed: '0', signature: null, accessStatus: null, verificationLevel: null, usdDistributed24Hr: 0,
      usdDistributed1Hr: 0, ...overrides,
    });
    const trending = validators.get('listTrendingCampaigns')!;
    expect(trending({ trendingCampaigns: [entry({})] })).toBe(true);
    expect(trending({ trendingCampaigns: [entry({ nftImageUri: null })] })).toBe(false);
    expect(trending({ trendingCampaigns: [entry({ totalBudget: '23246.00' })] })).toBe(false);
    expect(trending({ trendingCampaigns: [entry({ somethingElse: 1 })] })).toBe(false);
    const member = { memberAddress: DEMO_USER_ADDRESS, roles: [1] };
    const account = {
      id: '1:0x0000000000000000000000000000000000000001', identifier: '0x0000000000000000000000000000000000000001', registryType: 'BUDGET',
      baseImplementation: DEMO_USER_ADDRESS, deployedInstance: DEMO_USER_ADDRESS, txHash: '0x', blockTimestamp: '1', blockNumber: '1',
      chainId: 1, address: DEMO_USER_ADDRESS, owner: DEMO_USER_ADDRESS, hidden: false, members: [member], deprecated: false,
    };
    const budget = validators.get('getBudgetAccount')!;
    expect(budget(account)).toBe(true);
    expect(budget({ ...account, ownerEmail: 'owner@example.com' })).toBe(false);
    expect(budget({ ...account, members: [{ ...member, email: 'member@example.com' }] })).toBe(false);
    expect(budget({ ...account, members: [{ ...member, status: null }] })).toBe(false);
  });

  it('accepts every answer of all eighteen operations on the demo data', async () => {
    const campaignIds = await ids(sql`SELECT public_id AS id FROM campaigns ORDER BY key LIMIT 40`);
    const claimants = await ids(sql`SELECT claimant AS id FROM claims GROUP BY claimant ORDER BY count(*) DESC LIMIT 5`);
    const signers = await ids(sql`SELECT claimant AS id FROM claim_signatures WHERE NOT used GROUP BY claimant ORDER BY count(*) DESC LIMIT 5`);
    const templates = await ids(sql`SELECT id::text AS id FROM action_templates ORDER BY id`);
    const accounts = await ids(sql`SELECT chain_id || ':' || address AS id FROM budget_accounts ORDER BY chain_id, address LIMIT 60`);
    const tokens = await ids(sql`SELECT chain_id || '/' || address AS id FROM tokens`);
    const people = [DEMO_USER_ADDRESS, ...claimants, ...signers];

    await call('listCampaigns', '/campaigns?pageSize=100&tokenWhitelist=false');
    for (const id of campaignIds.slice(0, 10)) await call('getCampaign', `/campaigns/${id}`);
    for (const period of ['1h', '24h']) {
      await call('listTrendingCampaigns', `/reward-kit/trending?sortBy=${period}&pageSize=100&tokenWhitelist=false&includeTokenMetadata=true`);
      for (const person of people) await call('listTrendingCampaigns', `/reward-kit/trending?sortBy=${period}&pageSize=100&claimantAddress=${person}`);
    }
    await call('exploreContracts', '/explore/contracts?pageSize=100');
    await call('listAccessLists', '/campaigns/accesslists?pageSize=100', true);
    await call('getUserProfile', '/users/profile', true);

    for (let page = 1; page <= 2; page++) await call('getKnownSignatures', `/known-signatures?page=${page}&pageSize=10`);
    for (const sort of ['most-completions', 'total-spend', 'recently-deployed']) {
      for (const period of ['6h', '24h', '7d']) await call('exploreCampaigns', `/explore?sortBy=${sort}&timePeriod=${period}&pageSize=100`);
    }
    for (const person of people) await call('getClaimableSignatures', `/signatures/claimable/${person}`);
    for (const token of tokens) await call('getBlocklist', `/blocklist/${token}`);
    for (const id of campaignIds) await call('getCampaignActivity', `/campaigns/${id}/activity?pageSize=100`);
    for (const sort of ['active', 'recently-deployed']) {
      await call('getRewardKitRewards', `/reward-kit/campaigns?sortBy=${sort}&pageSize=100&tokenWhitelist=false&includeTokenMetadata=true`);
      for (const person of people) {
        for (const status of ['active', 'claimable', 'claimed']) {
          await call('getRewardKitRewards', `/reward-kit/campaigns?sortBy=${sort}&status=${status}&pageSize=100&tokenWhitelist=false&claimantAddress=${person}`);
        }
      }
    }
    for (const person of people) await call('getRewardKit', `/reward-kit?claimantAddress=${person}&tokenWhitelist=false&includeTokenMetadata=true`);
    for (const id of campaignIds) {
      await call('getRewardKitReward', `/reward-kit/campaigns/${id}`);
      await call('getRewardKitReward', `/reward-kit/campaigns/${id}?address=${people[campaignIds.indexOf(id) % people.length]}&includeTokenMetadata=true`);
    }
    await call('getActionTemplates', '/action-templates?onlyActive=false');
    for (const id of templates) await call('getActionTemplate', `/action-templates/${id}`);
    for (let page = 1; page <= 3; page++) await call('getBudgetAccounts', `/budget-accounts?pageSize=100&page=${page}`);
    await call('getBudgetAccounts', `/budget-accounts?member=${DEMO_USER_ADDRESS}&pageSize=100`);
    for (const id of accounts) await call('getBudgetAccount', `/budget-accounts/${id}`);

    // Every operation was called, and the lists were not all empty: the client saw real answers.
    expect([...seen.keys()].sort()).toEqual(Object.keys(SHEET).sort());
  }, 120_000);
});
