import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
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
import { walkEveryOperation } from './sheet-walk.js';

// A CommonJS module: Node's ESM loader hands over its exports object, whose `default` is the plugin;
// TypeScript types it either way, by module resolution.
type FormatsPlugin = typeof ajvFormats extends { default: infer Plugin } ? Plugin : typeof ajvFormats;
const addFormats = ('default' in ajvFormats ? ajvFormats.default : ajvFormats) as FormatsPlugin;

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
  addFormats(ajv);
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

  it('refuses what the document refuses: the trending fields of old, a served e-mail, an unknown field', () => {
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
    await walkEveryOperation(call, ids, DEMO_USER_ADDRESS);
    // Every operation was called, and the lists were not all empty: the client saw real answers.
    expect([...seen.keys()].sort()).toEqual(Object.keys(SHEET).sort());
  }, 120_000);
});
