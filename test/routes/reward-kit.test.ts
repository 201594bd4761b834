import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import type { Reward, RewardList, RewardProfile } from '../../src/schemas/reward-kit.js';
import type { TrendingEntry } from '../../src/schemas/trending.js';
import { generateDataset } from '../../src/seed/dataset.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectToMatchSchema } from '../helpers/schema.js';

/**
 * The reward-kit operations on generated data. Which rewards each list holds, in which order, and
 * the fields that carry numbers are recomputed here with plain SQL over the claims themselves
 * (the service reads claim volumes from memory and totals from maintained counters).
 */
const NOW = new Date('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;

describe('reward-kit operations', () => {
  let database: TestDatabase;
  let app: App;
  /** The user with the most unused signatures on active campaigns (and claims of its own). */
  let claimant = '';
  const rows = <Row>(query: ReturnType<typeof sql>) => queryRows<Row>(database.db, query);
  const active = sql`(c.start_time IS NULL OR c.start_time <= ${NOW}) AND (c.end_time IS NULL OR c.end_time > ${NOW}) AND c.has_budget_left`;
  const ids = (query: ReturnType<typeof sql>) => rows<{ public_id: string }>(query).then((found) => found.map((row) => row.public_id));

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 150, claims: 3000, seed: 23, now: NOW }));
    app = await buildTestApp(database, {}, undefined, { clock: () => NOW });
    const [chosen] = await rows<{ claimant: string }>(
      sql`SELECT g.claimant FROM claim_signatures AS g JOIN campaigns AS c ON c.key = g.campaign_key
           WHERE NOT g.used AND ${active} AND EXISTS (SELECT 1 FROM claims AS w WHERE w.claimant = g.claimant)
           GROUP BY g.claimant ORDER BY count(*) DESC, g.claimant LIMIT 1`,
    );
    claimant = chosen!.claimant;
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const get = async <T>(url: string, schemaId: string): Promise<T> => {
    const response = await app.inject(url);
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    const body = response.json<T>();
    expectToMatchSchema(body, schemaId);
    return body;
  };
  const expectError = async (url: string, status: number, message: RegExp) => {
    const response = await app.inject(url);
    expect(response.statusCode, `${url}: ${response.body}`).toBe(status);
    expect(Object.keys(response.json())).toEqual(['error']);
    expect(response.json<{ error: string }>().error).toMatch(message);
  };

  /** An entry's numbers and standing, from the claims, signatures and incentives themselves. */
  async function expectEntryMatchesSql(entry: TrendingEntry, claimant?: string) {
    const [expected] = await rows<Record<string, string | number | boolean | null>>(
      sql`WITH c AS (SELECT * FROM campaigns WHERE public_id = ${entry.id}),
               reward AS (SELECT lower(i.params->>'asset') AS asset FROM incentives AS i, c
                           WHERE i.campaign_key = c.key AND i.type NOT IN ('AllowListIncentive', 'PointsIncentive')
                           ORDER BY i.position LIMIT 1)
          SELECT c.chain_id,
                 (SELECT count(*) FROM claims AS w WHERE w.campaign_key = c.key)::integer AS claim_count,
                 (SELECT coalesce(sum(w.usd_value), 0) FROM claims AS w WHERE w.campaign_key = c.key
                    AND w.claimed_at > ${new Date(NOW.getTime() - 24 * HOUR)} AND w.claimed_at <= ${NOW})::float8 AS usd24,
                 (SELECT coalesce(sum(w.usd_value), 0) FROM claims AS w WHERE w.campaign_key = c.key
                    AND w.claimed_at > ${new Date(NOW.getTime() - HOUR)} AND w.claimed_at <= ${NOW})::float8 AS usd1,
                 (SELECT coalesce(sum(w.amount), 0)::text FROM claims AS w JOIN incentives AS i
                     ON i.campaign_key = w.campaign_key AND i.position = w.incentive_position
                   WHERE w.campaign_key = c.key AND i.type NOT IN ('AllowListIncentive', 'PointsIncentive')
                     AND lower(i.params->>'asset') = (SELECT asset FROM reward)) AS distributed,
                 (SELECT coalesce(sum(CASE WHEN i.type = 'ERC20Incentive' AND i.params->>'strategy' = '1' THEN (i.params->>'reward')::numeric
                                           WHEN i.type = 'ERC20Incentive' THEN (i.params->>'reward')::numeric * (i.params->>'limit')::numeric
                                           WHEN i.type = 'CGDAIncentive' THEN (i.params->>'totalBudget')::numeric
                                           ELSE (i.params->>'limit')::numeric END), 0)::text
                    FROM incentives AS i WHERE i.campaign_key = c.key AND i.type NOT IN ('AllowListIncentive', 'PointsIncentive')
                     AND lower(i.params->>'asset') = (SELECT asset FROM reward)) AS budget,
                 (SELECT p.slug FROM action_templates AS t JOIN projects AS p ON p.id = t.project_id WHERE t.id = c.action_template_id) AS slug,
                 ${claimant === undefined ? sql`false` : sql`EXISTS (SELECT 1 FROM claims AS w WHERE w.campaign_key = c.key AND w.claimant = ${claimant})`} AS claimed,
                 ${claimant === undefined ? sql`false` : sql`EXISTS (SELECT 1 FROM claim_signatures AS g WHERE g.campaign_key = c.key AND g.claimant = ${claimant} AND NOT g.used)`} AS signed
            FROM c`,
    );
    expect(entry.chainId).toBe(expected!.chain_id);
    expect(entry.claimCount).toBe(expected!.claim_count);
    expect(entry.usdDistributed24Hr).toBeCloseTo(Number(expected!.usd24), 6);
    expect(entry.usdDistributed1Hr).toBeCloseTo(Number(expected!.usd1), 6);
    expect(entry.rewardsDistributed).toBe(expected!.distributed);
    expect(entry.totalBudget).toBe(expected!.budget);
    expect(entry.actionTemplate?.projectId ?? null).toBe(expected!.slug);
    expect(entry.status).toBe(expected!.claimed ? 'claimed' : expected!.signed ? 'claimable' : 'active');
  }

  describe('GET /reward-kit/campaigns', () => {
    it('lists active rewards newest first by default, each entry matching SQL', async () => {
      const body = await get<RewardList>('/reward-kit/campaigns?pageSize=20', 'RewardList');
      const expected = await ids(
        sql`SELECT public_id FROM campaigns AS c WHERE ${active} AND c.pays_only_whitelisted_tokens
             ORDER BY c.block_timestamp DESC, c.public_id LIMIT 20`,
      );
      expect(body.campaigns.map((entry) => entry.id)).toEqual(expected);
      for (const entry of body.campaigns) await expectEntryMatchesSql(entry);
      const second = await get<RewardList>('/reward-kit/campaigns?pageSize=10&page=2', 'RewardList');
      expect(second.campaigns.map((entry) => entry.id)).toEqual(expected.slice(10, 20));
    });

    it("lists a claimant's claimable rewards by default, and its claimed and active ones on asking", async () => {
      const claimable = await get<RewardList>(`/reward-kit/campaigns?pageSize=100&tokenWhitelist=false&claimantAddress=${claimant}`, 'RewardList');
      expect(claimable.campaigns.length).toBeGreaterThan(0);
      expect(claimable.campaigns.every((entry) => entry.status === 'claimable' || entry.status === 'claimed')).toBe(true);
      expect(claimable.campaigns.map((entry) => entry.id).sort()).toEqual(
        (
          await ids(sql`SELECT c.public_id FROM campaigns AS c WHERE ${active}
                     AND EXISTS (SELECT 1 FROM claim_signatures AS g WHERE g.campaign_key = c.key AND g.claimant = ${claimant} AND NOT g.used)`)
        ).sort(),
      );
      const claimed = await get<RewardList>(
        `/reward-kit/campaigns?pageSize=100&tokenWhitelist=false&status=claimed&sortBy=recently-deployed&claimantAddress=${claimant}`,
        'RewardList',
      );
      const expectedClaimed = await ids(
        sql`SELECT c.public_id FROM campaigns AS c WHERE EXISTS (SELECT 1 FROM claims AS w WHERE w.campaign_key = c.key AND w.claimant = ${claimant})
             ORDER BY c.block_timestamp DESC, c.public_id LIMIT 100`,
      );
      expect(expectedClaimed.length).toBeGreaterThan(0);
      expect(claimed.campaigns.map((entry) => entry.id)).toEqual(expectedClaimed);
      for (const entry of claimed.campaigns.slice(0, 10)) {
        expect(entry.status).toBe('claimed');
        await expectEntryMatchesSql(entry, claimant);
      }
      const activeFor = await get<RewardList>(`/reward-kit/campaigns?pageSize=100&status=active&claimantAddress=${claimant}`, 'RewardList');
      for (const entry of activeFor.campaigns) {
        expect(entry.status).toBe('active');
        expect(entry.accessStatus).toBe('allowed');
        expect(expectedClaimed).not.toContain(entry.id);
      }
    });

    it('refuses claimable or claimed without a claimant, and bad input', async () => {
      await expectError('/reward-kit/campaigns?status=claimed', 400, /claimantAddress/);
      await expectError('/reward-kit/campaigns?status=claimable', 400, /claimantAddress/);
      await expectError('/reward-kit/campaigns?status=done', 400, /status/);
      await expectError('/reward-kit/campaigns?sortBy=24h', 400, /sortBy/);
      await expectError('/reward-kit/campaigns?claimantAddress=0x1', 400, /claimantAddress/);
      await expectError('/reward-kit/campaigns?pageSize=101', 400, /pageSize/);
      await expectError('/reward-kit/campaigns?targetContract=0x0000000000000000000000000000000000000001', 400, /chainId/);
    });
  });

  describe('GET /reward-kit', () => {
    it("gives a claimant's claimed, claimable and active rewards and its USD totals", async () => {
      const body = await get<RewardProfile>(`/reward-kit?claimantAddress=${claimant}&tokenWhitelist=false`, 'RewardProfile');
      const claimed = await ids(
        sql`SELECT c.public_id FROM campaigns AS c JOIN (SELECT campaign_key, max(claimed_at) AS latest FROM claims
             WHERE claimant = ${claimant} GROUP BY campaign_key) AS m ON m.campaign_key = c.key ORDER BY m.latest DESC, c.public_id LIMIT 100`,
      );
      expect(body.claimedCampaigns.map((entry) => entry.id)).toEqual(claimed);
      const claimable = await ids(
        sql`SELECT c.public_id FROM campaigns AS c JOIN (SELECT campaign_key, max(id) AS latest FROM claim_signatures
             WHERE claimant = ${claimant} AND NOT used GROUP BY campaign_key) AS m ON m.campaign_key = c.key
             WHERE ${active} ORDER BY m.latest DESC, c.public_id LIMIT 100`,
      );
      expect(claimable.length).toBeGreaterThan(0);
      expect(body.claimableCampaigns.map((entry) => entry.id)).toEqual(claimable);
      expect(body.totalClaimableAmountUsd).toBeGreaterThan(0);
      for (const entry of body.activeCampaigns) {
        expect(claimed).not.toContain(entry.id);
        expect(claimable).not.toContain(entry.id);
        expect(entry.accessStatus).toBe('allowed');
      }
      expect(body.activeCampaigns.length).toBeGreaterThan(0);
      const [usd] = await rows<{ usd: number }>(sql`SELECT coalesce(sum(usd_value), 0)::float8 AS usd FROM claims WHERE claimant = ${claimant}`);
      expect(body.totalClaimedAmountUsd).toBeCloseTo(usd!.usd, 6);
      let claimableUsd = 0;
      const signatures = await rows<{ public_id: string; incentive_id: number }>(
        sql`SELECT c.public_id, g.incentive_id FROM claim_signatures AS g JOIN campaigns AS c ON c.key = g.campaign_key
             WHERE g.claimant = ${claimant} AND NOT g.used AND ${active}`,
      );
      for (const signature of signatures) {
        const entry = body.claimableCampaigns.find((candidate) => candidate.id === signature.public_id);
        claimableUsd += entry?.incentives[signature.incentive_id]?.rewardUsdValue ?? 0;
      }
      expect(body.totalClaimableAmountUsd).toBeCloseTo(claimableUsd, 6);
    });

    it('applies the filters to all three lists and to nothing else', async () => {
      const all = await get<RewardProfile>(`/reward-kit?claimantAddress=${claimant}&tokenWhitelist=false`, 'RewardProfile');
      const chainId = all.claimedCampaigns[0]!.chainId;
      const body = await get<RewardProfile>(`/reward-kit?claimantAddress=${claimant}&tokenWhitelist=false&chainId=${chainId}`, 'RewardProfile');
      const onChain = (entries: RewardProfile['claimedCampaigns']) => entries.filter((entry) => entry.chainId === chainId).map((entry) => entry.id);
      // Without the filter some listed reward is on another chain, so a filter left out would show.
      const everyEntry = [...all.activeCampaigns, ...all.claimedCampaigns, ...all.claimableCampaigns];
      expect(everyEntry.some((entry) => entry.chainId !== chainId)).toBe(true);
      expect(body.claimedCampaigns.map((entry) => entry.id)).toEqual(onChain(all.claimedCampaigns));
      expect(body.claimableCampaigns.map((entry) => entry.id)).toEqual(onChain(all.claimableCampaigns));
      expect(body.claimedCampaigns.length).toBeGreaterThan(0);
      for (const entry of body.activeCampaigns) expect(entry.chainId).toBe(chainId);
      expect(body.activeCampaigns.length).toBeGreaterThan(0);
      // The totals are the claimant's, whatever the lists show.
      expect(body.totalClaimedAmountUsd).toBe(all.totalClaimedAmountUsd);
    });

    it('needs claimantAddress, and refuses paging and status', async () => {
      await expectError('/reward-kit', 400, /claimantAddress/);
      await expectError(`/reward-kit?claimantAddress=${claimant}&page=2`, 400, /unknown query parameter 'page'/);
      await expectError(`/reward-kit?claimantAddress=${claimant}&status=claimed`, 400, /unknown query parameter 'status'/);
    });
  });

  describe('GET /reward-kit/campaigns/{id}', () => {
    it("gives one reward with its newest claims, total and the address's standing", async () => {
      const [busy] = await rows<{ public_id: string; key: number }>(
        sql`SELECT c.public_id, c.key FROM campaigns AS c JOIN claims AS w ON w.campaign_key = c.key
             GROUP BY c.key ORDER BY count(*) DESC, c.public_id LIMIT 1`,
      );
      const claims = await rows<{ claimant: string; tx_hash: string; at: string }>(
        sql`SELECT claimant, tx_hash, to_char(claimed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at FROM claims
             WHERE campaign_key = ${busy!.key} ORDER BY claimed_at DESC, id DESC`,
      );
      const body = await get<Reward>(`/reward-kit/campaigns/${busy!.public_id}`, 'Reward');
      expect(body.totalClaims).toBe(claims.length);
      expect(body.claims).toEqual(claims.slice(0, 100).map((claim) => ({ address: claim.claimant, txHash: claim.tx_hash, timestamp: claim.at })));
      expect(body.status).toBe('active');
      expect(body).not.toHaveProperty('accessStatus');
      expect(body).not.toHaveProperty('txHash');
      await expectEntryMatchesSql(body.campaign);

      const claimant = claims[claims.length - 1]!.claimant;
      const latest = claims.find((claim) => claim.claimant === claimant)!;
      const forClaimant = await get<Reward>(`/reward-kit/campaigns/${busy!.public_id}?address=${claimant}`, 'Reward');
      expect(forClaimant).toMatchObject({ status: 'claimed', txHash: latest.tx_hash });
      expect(forClaimant.accessStatus).toMatch(/^(allowed|denied|not-allowed)$/);
      await expectEntryMatchesSql(forClaimant.campaign, claimant);
    });

    it('404s an unknown campaign and refuses a malformed ID', async () => {
      await expectError('/reward-kit/campaigns/8453:0x0000000000000000000000000000000000000001:1', 404, /not found/);
      await expectError('/reward-kit/campaigns/8453:nope:1', 400, /id/);
      await expectError('/reward-kit/campaigns/8453:0x0000000000000000000000000000000000000001:1?address=bob', 400, /address/);
    });
  });
});
