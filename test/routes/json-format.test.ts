import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { DEMO_CAMPAIGNS, DEMO_CLAIMS } from '../../src/demo.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import { DEFAULT_SEED, generateDataset } from '../../src/seed/dataset.js';
import { DEMO_USER_ADDRESS } from '../../src/seed/reference.js';
import { walkEveryOperation } from '../contract/sheet-walk.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address, insertApiToken, insertCampaign, insertClaim, insertToken } from '../helpers/factories.js';

/**
 * One JSON formatting for every answer (issue 49): compact, with no whitespace outside strings,
 * whoever wrote it (fast-json-stringify, the services' assembly, the documents the database
 * stores). Compact means equal to what JSON.stringify prints for the parsed answer.
 */
const NOW = new Date('2026-11-20T12:00:00Z');

/** Texts that the separators JSON prints (`", "`, `": "`) and escapes appear in: they must survive as they are. */
const TRICKY = 'a", "b": "c, d: e \\" \\\\", "';

/** Where `body` first differs from the compact form of its JSON, with some context; undefined when it is compact. */
function notCompact(body: string): string | undefined {
  const compact = JSON.stringify(JSON.parse(body));
  if (body === compact) return undefined;
  let at = 0;
  while (body[at] === compact[at]) at++;
  return `differs at ${at}: ${JSON.stringify(body.slice(Math.max(0, at - 40), at + 40))}`;
}

describe('every answer is compact JSON, numbers as JavaScript prints them', () => {
  let database: TestDatabase;
  let app: App;
  let token: string;
  let tricky: string;
  const seen = new Map<string, number>();

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    await writeDataset(database, generateDataset({ campaigns: DEMO_CAMPAIGNS, claims: DEMO_CLAIMS, seed: DEFAULT_SEED, now: NOW }));
    const [user] = await queryRows<{ id: string }>(db, sql`SELECT id::text FROM users WHERE address = ${DEMO_USER_ADDRESS}`);
    ({ token } = await insertApiToken(db, user!.id));

    // One of the newest campaigns (on the lists' first page), with the tricky text in a string of every kind the
    // database assembles: a campaign field, an incentive's own field and nested criteria, an
    // action step's parameters, token metadata.
    const asset = await insertToken(db, { chainId: 8453, name: TRICKY, symbol: 'T, K', decimals: 6, priceUsd: '1' });
    const campaign = await insertCampaign(db, {
      chainId: 8453,
      blockTimestamp: Math.floor(NOW.getTime() / 1000) - 60,
      campaignName: TRICKY,
      nftName: ', ',
      incentives: [
        {
          type: 'ERC20VariableCriteriaIncentive',
          params: {
            asset: asset.address,
            reward: '1000000',
            limit: '5000000',
            maxReward: '2000000',
            note: TRICKY,
            criteria: { criteriaType: 0, signature: '0xa9059cbb', fieldIndex: 1, targetContract: address(0x7a7a), label: TRICKY },
          },
        },
        { type: 'ERC20Incentive', params: { asset: asset.address, strategy: 0, reward: '1000', limit: '10' } },
      ],
      steps: [{ parameters: { filterType: 0, fieldType: 0, fieldIndex: 1, filterData: TRICKY } }],
      allowList: { type: 'SimpleAllowList', addresses: [address(0xa11), address(0xa12)] },
    });
    tricky = campaign.publicId;
    // 50 of a 6-decimal token: a tokenSpend of 5e-5, a number JavaScript and PostgreSQL print differently.
    await insertClaim(db, { campaignKey: campaign.key, incentivePosition: 1, amount: '50', claimedAt: new Date(NOW.getTime() - 60_000) });

    app = await buildTestApp(database, {}, undefined, { clock: () => NOW });
  }, 120_000);
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const inject = async (url: string, auth = false) => {
    const response = await app.inject({ url, headers: auth ? { authorization: `Bearer ${token}` } : {} });
    expect(response.headers['content-type'], url).toMatch(/^application\/json/);
    return response;
  };
  const get = async (url: string, auth = false) => {
    const response = await inject(url, auth);
    expect(notCompact(response.body), url).toBeUndefined();
    return response;
  };

  it('answers every operation compactly, with the data present', async () => {
    const spaced = new Map<string, string>();
    await walkEveryOperation(
      async (operationId, url, auth) => {
        const response = await inject(url, auth);
        expect(response.statusCode, `${url}: ${response.body.slice(0, 300)}`).toBe(200);
        seen.set(operationId, (seen.get(operationId) ?? 0) + 1);
        const where = notCompact(response.body);
        if (where !== undefined && !spaced.has(operationId)) spaced.set(operationId, `${url} ${where}`);
        return response.json();
      },
      async (query) => (await queryRows<{ id: string }>(database.db, query)).map((row) => row.id),
      DEMO_USER_ADDRESS,
    );
    expect(seen.size).toBe(18);
    expect(Object.fromEntries(spaced)).toEqual({});
  }, 120_000);

  it('keeps strings that hold the separators as they are, and only those', async () => {
    const detail = (await get(`/campaigns/${tricky}`)).json<{
      campaignName: string;
      nftName: string;
      incentives: { note?: string; criteria?: { label: string }; metadata: { name: string; symbol: string } }[];
      actionSteps: { parameters: { filterData: string } }[];
    }>();
    expect(detail.campaignName).toBe(TRICKY);
    expect(detail.nftName).toBe(', ');
    expect(detail.incentives[0]!.note).toBe(TRICKY);
    expect(detail.incentives[0]!.criteria!.label).toBe(TRICKY);
    expect(detail.incentives[1]!.metadata).toMatchObject({ name: TRICKY, symbol: 'T, K' });
    expect(detail.actionSteps[0]!.parameters.filterData).toBe(TRICKY);

    const list = (await get('/campaigns?pageSize=5&tokenWhitelist=false')).json<{ campaigns: { id: string; campaignName: string; tokenSpend: number }[] }>();
    expect(list.campaigns.find((item) => item.id === tricky)).toMatchObject({ campaignName: TRICKY, tokenSpend: 0.00005 });
    const explore = (await get('/explore?sortBy=recently-deployed&pageSize=5')).json<{ campaigns: { id: string; campaignName: string }[] }>();
    expect(explore.campaigns.find((item) => item.id === tricky)?.campaignName).toBe(TRICKY);
    const activity = (await get(`/campaigns/${tricky}/activity`)).json<{ activityEvents: { incentives: { type: string }[] }[] }>();
    expect(activity.activityEvents[0]!.incentives[0]!.type).toBe('ERC20Incentive');
    await get(`/reward-kit/campaigns/${tricky}?includeTokenMetadata=true`);
  });

  it('answers errors, probes and the API document compactly too', async () => {
    expect((await get('/campaigns/1:0x0000000000000000000000000000000000000001:1')).statusCode).toBe(404);
    expect((await get('/campaigns?pageSize=1000')).statusCode).toBe(400);
    expect((await get('/users/profile')).statusCode).toBe(401);
    expect((await get('/health/live')).statusCode).toBe(200);
    expect((await get('/health/ready')).statusCode).toBe(200);
    expect((await get('/openapi.json')).statusCode).toBe(200);
  });
});
