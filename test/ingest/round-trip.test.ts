import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { exportNdjson } from '../../src/ingest/export.js';
import { importNdjson } from '../../src/ingest/ndjson-source.js';
import { generateDataset } from '../../src/seed/dataset.js';
import { DEMO_USER_ADDRESS } from '../../src/seed/reference.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertApiToken } from '../helpers/factories.js';

/**
 * Seed, export, import into an empty database: every route answers both databases identically, and
 * exporting the copy gives the same bytes.
 */
const NOW = new Date('2026-11-20T12:00:00.000Z');

async function exportText(database: TestDatabase): Promise<string> {
  let text = '';
  await exportNdjson(database, async (chunk) => {
    text += chunk;
  });
  return text;
}

describe('export, then import into an empty database', () => {
  let source: TestDatabase;
  let copy: TestDatabase;
  let exported: string;
  let sourceApp: App;
  let copyApp: App;

  beforeAll(async () => {
    [source, copy] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    await writeDataset(source, generateDataset({ campaigns: 300, claims: 4000, seed: 11, now: new Date(NOW.getTime() - 3_600_000) }));
    exported = await exportText(source);
    await importNdjson(copy, Readable.from([exported]));
    sourceApp = await buildTestApp(source, {}, undefined, { clock: () => NOW });
    copyApp = await buildTestApp(copy, {}, undefined, { clock: () => NOW });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([sourceApp?.close(), copyApp?.close()]);
    await Promise.all([source?.close(), copy?.close()]);
  });

  it('exports every kind, and the copy exports the same bytes', async () => {
    const kinds = new Set(exported.trim().split('\n').map((line) => (JSON.parse(line) as { kind: string }).kind));
    expect([...kinds].sort()).toEqual(
      [
        'accessList',
        'actionTemplate',
        'allowList',
        'budgetAccount',
        'campaign',
        'claim',
        'claimSignature',
        'contract',
        'knownSignature',
        'project',
        'token',
        'user',
      ].sort(),
    );
    expect(exported).not.toMatch(/token_hash|tokenHash/);
    expect(await exportText(copy)).toBe(exported);
  });

  it('the copy holds the same derived state: claim totals, flags and documents', async () => {
    const fingerprint = (database: TestDatabase) =>
      queryRows<{ documents: string; totals: string; flags: string }>(
        database.db,
        sql`SELECT (SELECT md5(string_agg(d.list_item || d.detail, '' ORDER BY c.public_id)) FROM campaign_documents AS d
                      JOIN campaigns AS c ON c.key = d.campaign_key) AS documents,
                   (SELECT md5(string_agg(c.public_id || i.position || i.total_claims || i.total_amount_claimed || i.total_usd_claimed, ','
                                          ORDER BY c.public_id, i.position))
                      FROM incentives AS i JOIN campaigns AS c ON c.key = i.campaign_key) AS totals,
                   (SELECT md5(string_agg(public_id || has_budget_left || pays_only_whitelisted_tokens, ',' ORDER BY public_id))
                      FROM campaigns) AS flags`,
      );
    expect(await fingerprint(copy)).toEqual(await fingerprint(source));
  });

  it('every route answers the same for a sample of requests covering every route and filter', async () => {
    const pick = async <Row>(query: ReturnType<typeof sql>) => (await queryRows<Row>(source.db, query))[0]!;
    const campaign = await pick<{ id: string; owner: string; budget: string; autocampaign: string | null; chain: number }>(
      sql`SELECT public_id AS id, owner, budget, autocampaign_id AS autocampaign, chain_id AS chain FROM campaigns
           WHERE autocampaign_id IS NOT NULL ORDER BY key LIMIT 1`,
    );
    const target = await pick<{ chain: number; address: string }>(
      sql`SELECT chain_id AS chain, target_contract AS address FROM action_steps ORDER BY campaign_key LIMIT 1`,
    );
    const token = await pick<{ chain: number; address: string }>(
      sql`SELECT c.chain_id AS chain, i.asset_address AS address FROM incentives AS i JOIN campaigns AS c ON c.key = i.campaign_key
           WHERE i.asset_address IS NOT NULL ORDER BY i.campaign_key LIMIT 1`,
    );
    const channel = await pick<{ channel: string }>(
      sql`SELECT distribution_channels[1] AS channel FROM campaigns WHERE cardinality(distribution_channels) > 0 LIMIT 1`,
    );
    const actionType = await pick<{ type: string }>(sql`SELECT action_type AS type FROM action_templates ORDER BY id LIMIT 1`);
    const claimant = await pick<{ address: string }>(sql`SELECT claimant AS address FROM claims ORDER BY id LIMIT 1`);
    const someCampaigns = await queryRows<{ id: string }>(source.db, sql`SELECT public_id AS id FROM campaigns ORDER BY key DESC LIMIT 5`);

    const requests = [
      '/campaigns',
      '/campaigns?pageSize=100&page=2',
      '/campaigns?tokenWhitelist=false&pageSize=50',
      '/campaigns?sortBy=active&pageSize=30',
      '/campaigns?showActiveOnly=true&pageSize=30',
      '/campaigns?showActiveOnly=false&tokenWhitelist=false',
      '/campaigns?actionTemplateOnly=true&tokenWhitelist=false',
      '/campaigns?actionTemplateOnly=false',
      `/campaigns?owner=${campaign.owner}&tokenWhitelist=false`,
      `/campaigns?budgetAccount=${campaign.budget}&tokenWhitelist=false`,
      `/campaigns?autocampaignId=${encodeURIComponent(campaign.autocampaign ?? '')}&tokenWhitelist=false`,
      `/campaigns?chainId=${campaign.chain}`,
      `/campaigns?targetContract=${target.address}&chainId=${target.chain}&tokenWhitelist=false`,
      `/campaigns?tokens=${token.chain}:${token.address}&tokenWhitelist=false`,
      `/campaigns?tokens=${target.chain}:${target.address}:collection&tokenWhitelist=false`,
      `/campaigns?distributionChannel=${encodeURIComponent(channel.channel)}&tokenWhitelist=false`,
      ...someCampaigns.map((row) => `/campaigns/${row.id}`),
      `/campaigns/${campaign.chain}:0x0000000000000000000000000000000000000001:1`,
      '/reward-kit/trending',
      '/reward-kit/trending?sortBy=1h&pageSize=50',
      '/reward-kit/trending?sortBy=24h&includeTokenMetadata=true&pageSize=100',
      `/reward-kit/trending?creatorAddress=${campaign.owner}`,
      `/reward-kit/trending?claimantAddress=${claimant.address}&pageSize=50`,
      `/reward-kit/trending?claimantAddress=${DEMO_USER_ADDRESS}&pageSize=50`,
      `/reward-kit/trending?actionType=${actionType.type}`,
      `/reward-kit/trending?excludeActionType=${actionType.type}&tokenWhitelist=false`,
      `/reward-kit/trending?chainId=${campaign.chain}&page=2&pageSize=5`,
      '/explore/contracts',
      '/explore/contracts?sortBy=total-spend&timePeriod=24h',
      '/explore/contracts?sortBy=recently-deployed&timePeriod=6h&pageSize=100',
      `/explore/contracts?actionChainIds=${target.chain}`,
      `/explore/contracts?userAddress=${campaign.owner}`,
    ];
    for (const url of requests) {
      const [expected, actual] = await Promise.all([sourceApp.inject({ url }), copyApp.inject({ url })]);
      expect({ url, status: actual.statusCode, body: actual.body }).toEqual({ url, status: expected.statusCode, body: expected.body });
    }
    expect(requests.length).toBeGreaterThan(30);

    // The staging routes, with a token issued in each database for the same user (tokens are never exported).
    const [user] = await queryRows<{ id: string }>(copy.db, sql`SELECT id::text FROM users WHERE address = ${DEMO_USER_ADDRESS}`);
    const [sourceToken, copyToken] = await Promise.all([insertApiToken(source.db, user!.id), insertApiToken(copy.db, user!.id)]);
    for (const url of ['/users/profile', '/campaigns/accesslists', '/campaigns/accesslists?sortBy=totalMembers&order=ASC&pageSize=3']) {
      const [expected, actual] = await Promise.all([
        sourceApp.inject({ url, headers: { authorization: `Bearer ${sourceToken.token}` } }),
        copyApp.inject({ url, headers: { authorization: `Bearer ${copyToken.token}` } }),
      ]);
      expect(expected.statusCode).toBe(200);
      expect({ url, body: actual.body }).toEqual({ url, body: expected.body });
    }
  });
});
