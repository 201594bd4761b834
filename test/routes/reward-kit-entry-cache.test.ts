import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import type { Reward, RewardList, RewardProfile } from '../../src/schemas/reward-kit.js';
import { generateDataset } from '../../src/seed/dataset.js';
import { EntryCache } from '../../src/services/entry-cache.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertClaim } from '../helpers/factories.js';

/**
 * The trending and reward-kit operations keep built entries while trending_entry_versions() reports their rows
 * unchanged. Two apps on one database: one keeps entries, the other builds every entry per request.
 * After each change to a row an entry is built from, both must answer the same, and the change must
 * show: a kept entry is never served once what it shows has changed.
 */
const NOW = new Date('2026-11-20T12:00:00Z');

describe('trending and reward-kit built entries', () => {
  let database: TestDatabase;
  let keeping: App;
  let building: App;
  const kept = new EntryCache({ maxEntries: 10_000 });
  let claimant = '';
  /** A campaign in the claimant's profile with a template, an allow list and a token the service knows. */
  let target = { key: 0, publicId: '', templateId: '', projectId: '', allowListId: '', chainId: 0, asset: '' };
  const rows = <Row>(query: SQL) => queryRows<Row>(database.db, query);
  const run = (query: SQL) => database.db.execute(query);

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 120, claims: 2500, seed: 31, now: NOW }));
    keeping = await buildTestApp(database, {}, undefined, { clock: () => NOW, entryCache: kept });
    building = await buildTestApp(database, {}, undefined, {
      clock: () => NOW,
      entryCache: new EntryCache({ maxEntries: 0 }),
    });
    const [chosen] = await rows<{ claimant: string }>(
      sql`SELECT claimant FROM claims GROUP BY claimant ORDER BY count(DISTINCT campaign_key) DESC, claimant LIMIT 1`,
    );
    claimant = chosen!.claimant;
    const [campaign] = await rows<typeof target>(
      sql`SELECT c.key, c.public_id AS "publicId", t.id::text AS "templateId", t.project_id::text AS "projectId",
                 c.allow_list_id::text AS "allowListId", c.chain_id AS "chainId", o.address AS asset
            FROM campaigns AS c
            JOIN action_templates AS t ON t.id = c.action_template_id
            JOIN incentives AS i ON i.campaign_key = c.key AND i.position = 0
            JOIN tokens AS o ON o.chain_id = c.chain_id AND o.address = i.asset_address
           WHERE c.allow_list_id IS NOT NULL AND EXISTS (SELECT 1 FROM claims AS w WHERE w.claimant = ${claimant} AND w.campaign_key = c.key)
           ORDER BY c.key LIMIT 1`,
    );
    target = campaign!;
  }, 60_000);
  afterAll(async () => {
    await keeping?.close();
    await building?.close();
    await database?.close();
  });

  const urls = () => [
    `/reward-kit?claimantAddress=${claimant}&includeTokenMetadata=true`,
    `/reward-kit/campaigns/${target.publicId}?address=${claimant}&includeTokenMetadata=true`,
    `/reward-kit/campaigns?claimantAddress=${claimant}&status=claimed&pageSize=100`,
    '/reward-kit/campaigns?pageSize=100&includeTokenMetadata=true',
    // Trending pages are made of the same kept entries.
    '/reward-kit/trending?sortBy=24h&pageSize=100&includeTokenMetadata=true',
    `/reward-kit/trending?sortBy=1h&pageSize=100&claimantAddress=${claimant}`,
  ];

  /** Both apps' answers to every URL, which must be equal; the target's reward and the active rewards as the keeping app shows them. */
  async function expectSameAnswers(): Promise<{ reward: Reward; rewards: RewardList }> {
    const answers = [];
    for (const url of urls()) {
      const [fromKept, fromBuilt] = await Promise.all([keeping.inject(url), building.inject(url)]);
      expect(fromKept.statusCode, `${url}: ${fromKept.body}`).toBe(200);
      expect(fromKept.json(), url).toEqual(fromBuilt.json());
      answers.push(fromKept.json<unknown>());
    }
    return { reward: answers[1] as Reward, rewards: answers[3] as RewardList };
  }

  it('keeps the entries it built, and answers as building them again would', async () => {
    const { reward, rewards } = await expectSameAnswers();
    expect(reward.campaign.id).toBe(target.publicId);
    expect(rewards.campaigns.some((entry) => entry.actionTokenMetadata)).toBe(true);
    const profile = (await keeping.inject(urls()[0]!)).json<RewardProfile>();
    const listed = profile.activeCampaigns.length + profile.claimedCampaigns.length + profile.claimableCampaigns.length;
    expect(listed).toBeGreaterThan(5);
    const trending = (await keeping.inject(urls()[4]!)).json<{ trendingCampaigns: unknown[] }>();
    expect(trending.trendingCampaigns.length).toBeGreaterThan(5);
    expect(kept.size).toBeGreaterThanOrEqual(listed);
    // Nothing changed since: the target's entry is kept at its current version, and answers reused kept entries.
    const version = await rows<{ version: string }>(
      sql`SELECT version FROM trending_entry_versions(ARRAY[${target.key}::integer], NULL)`,
    );
    expect(kept.get(target.key, version[0]!.version)).toBeDefined();
    const metrics = (await keeping.inject('/metrics')).body;
    expect(Number(/^reward_entry_lookups_total\{result="reused"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    expect(Number(/^reward_entry_lookups_total\{result="missed"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(listed);
    expect(metrics).toMatch(new RegExp(`^reward_entries_kept ${kept.size}$`, 'm'));
  });

  // Each change touches one kind of row an entry is built from; `shows` finds it in the answer.
  const changes: { name: string; change: () => Promise<unknown>; shows: (answers: { reward: Reward; rewards: RewardList }) => unknown }[] = [
    {
      name: 'the campaign',
      change: () => run(sql`UPDATE campaigns SET campaign_name = 'renamed' WHERE key = ${target.key}`),
      shows: ({ reward }) => expect(reward.campaign.campaignName).toBe('renamed'),
    },
    {
      name: 'its action template',
      change: () => run(sql`UPDATE action_templates SET description = 'described again' WHERE id = ${target.templateId}::uuid`),
      shows: ({ reward }) => expect(reward.campaign.actionTemplate?.description).toBe('described again'),
    },
    {
      name: "its template's project",
      change: () => run(sql`UPDATE projects SET name = 'Project Renamed', verification_level = 'device' WHERE id = ${target.projectId}::uuid`),
      shows: ({ reward }) => {
        expect(reward.campaign.actionTemplate?.projectId).toBe('project-renamed');
        expect(reward.verificationLevel).toBe('device');
      },
    },
    {
      name: 'the token its incentive pays',
      change: () =>
        run(sql`UPDATE tokens SET symbol = 'RENAMED', price_usd = 123.5 WHERE chain_id = ${target.chainId} AND address = ${target.asset}`),
      shows: ({ reward }) => expect(reward.campaign.incentives[0]!.tokenSymbol).toBe('RENAMED'),
    },
    {
      name: 'its incentive',
      change: () =>
        run(sql`UPDATE incentives SET params = jsonb_set(params, '{reward}', '"7"') WHERE campaign_key = ${target.key} AND position = 0`),
      shows: ({ reward }) => expect(reward.campaign.incentives[0]!.rewardAmount).toMatch(/^\d+$/),
    },
    {
      name: 'a new claim of it',
      change: () => insertClaim(database.db, { campaignKey: target.key, claimedAt: new Date(NOW.getTime() - 60_000), amount: '5' }),
      shows: ({ reward }) => expect(reward.totalClaims).toBe(reward.campaign.claimCount),
    },
    {
      name: 'a deleted claim of it',
      change: () =>
        run(sql`DELETE FROM claims WHERE id = (SELECT max(id) FROM claims WHERE campaign_key = ${target.key})`),
      shows: ({ reward }) => expect(reward.totalClaims).toBe(reward.campaign.claimCount),
    },
    {
      // An allow list that does not list the claimant shuts it out.
      name: 'its allow list',
      change: async () => {
        await run(sql`DELETE FROM allow_list_addresses WHERE allow_list_id::text = ${target.allowListId} AND address = ${claimant}`);
        await run(sql`UPDATE allow_lists SET type = 'SimpleAllowList', access_list_id = NULL WHERE id::text = ${target.allowListId}`);
      },
      shows: ({ reward }) => expect(reward.accessStatus).toBe('not-allowed'),
    },
    {
      name: "the tokens of swap actions",
      change: () =>
        run(sql`UPDATE tokens SET market_cap_usd = 777 WHERE (chain_id, address) IN (SELECT chain_id, action_token_address FROM campaigns)`),
      shows: ({ rewards }) =>
        expect(rewards.campaigns.filter((entry) => entry.actionTokenMetadata).map((entry) => entry.actionTokenMetadata?.marketCap)).toContain(777),
    },
    {
      name: 'a new incentive of it',
      change: () =>
        run(sql`INSERT INTO incentives (campaign_key, position, type, params)
                SELECT campaign_key, 9, type, params FROM incentives WHERE campaign_key = ${target.key} AND position = 0`),
      shows: ({ reward }) => expect(reward.campaign.incentives.length).toBeGreaterThan(1),
    },
  ];

  for (const { name, change, shows } of changes) {
    it(`builds the entry again after a change to ${name}`, async () => {
      const before = kept.size;
      await change();
      shows(await expectSameAnswers());
      expect(kept.size).toBeGreaterThanOrEqual(before);
    });
  }
});
