import { type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import type { RewardProfile } from '../../src/schemas/reward-kit.js';
import { generateDataset } from '../../src/seed/dataset.js';
import { EntryCache } from '../../src/services/entry-cache.js';
import { ProfileCache } from '../../src/services/profile-cache.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertClaim } from '../helpers/factories.js';

/**
 * GET /reward-kit keeps its answers and serves them again while what they show is unchanged. Two
 * apps on one database and one clock: one keeps profiles, the other builds every profile (and every
 * entry) per request. After each change, to the database or to the clock, both must answer the same
 * and the change must show: a kept profile is never served once it is wrong.
 */
const START = new Date('2026-11-20T12:00:00Z');

let logIndex = 900_000;

/** A claim written in `client`'s own transaction. */
async function insertClaimOn(client: pg.Client, claim: { campaignKey: number; claimant: string; claimedAt: Date; usdValue: string }) {
  await client.query(
    `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
     VALUES ($1, (SELECT chain_id FROM campaigns WHERE key = $1), 0, $2, 1, $3, 1, $4, $5, $6)`,
    [claim.campaignKey, claim.claimant, claim.usdValue, `0x${'ab'.repeat(32)}`, logIndex++, claim.claimedAt],
  );
}

describe('GET /reward-kit kept answers', () => {
  let database: TestDatabase;
  let keeping: App;
  let building: App;
  let now = START;
  const kept = new ProfileCache({ maxBytes: 16 * 1024 * 1024 });
  let claimant = '';
  /** The campaign that starts while the test runs. */
  let starting = '';
  const rows = <Row>(query: SQL) => queryRows<Row>(database.db, query);
  const run = (query: SQL) => database.db.execute(query);
  const urls = () => [
    `/reward-kit?claimantAddress=${claimant}`,
    `/reward-kit?claimantAddress=${claimant}&includeTokenMetadata=true`,
    `/reward-kit?claimantAddress=${claimant}&tokenWhitelist=false`,
  ];

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 120, claims: 2500, seed: 47, now: START }));
    keeping = await buildTestApp(database, {}, undefined, { clock: () => now, profileCache: kept });
    building = await buildTestApp(database, {}, undefined, {
      clock: () => now,
      entryCache: new EntryCache({ maxEntries: 0 }),
      profileCache: new ProfileCache({ maxBytes: 0 }),
    });
    const [chosen] = await rows<{ claimant: string }>(
      sql`SELECT claimant FROM claims GROUP BY claimant ORDER BY count(DISTINCT campaign_key) DESC, claimant LIMIT 1`,
    );
    claimant = chosen!.claimant;
  }, 60_000);
  afterAll(async () => {
    await keeping?.close();
    await building?.close();
    await database?.close();
  });

  /** Both apps' answers to every URL, which must be equal; the first URL's answer. */
  async function expectSameAnswers(): Promise<RewardProfile> {
    const answers: RewardProfile[] = [];
    for (const url of urls()) {
      const [fromKept, fromBuilt] = await Promise.all([keeping.inject(url), building.inject(url)]);
      expect(fromKept.statusCode, `${url}: ${fromKept.body}`).toBe(200);
      expect(fromKept.json(), url).toEqual(fromBuilt.json());
      // The kept answer's entity tag is the body's, as the public-cache hook would compute it.
      expect(fromKept.headers.etag, url).toBe(fromBuilt.headers.etag);
      answers.push(fromKept.json<RewardProfile>());
    }
    return answers[0]!;
  }

  const ids = (entries: { id: string }[]) => entries.map((entry) => entry.id);
  const keyOf = async (publicId: string) => (await rows<{ key: number }>(sql`SELECT key FROM campaigns WHERE public_id = ${publicId}`))[0]!.key;

  it('serves a kept answer again while nothing changed', async () => {
    const first = await expectSameAnswers();
    expect(first.activeCampaigns.length).toBeGreaterThan(3);
    expect(first.claimedCampaigns.length).toBeGreaterThan(3);
    const before = kept.lookups;
    const second = await expectSameAnswers();
    expect(second).toEqual(first);
    expect(kept.lookups.reused - before.reused).toBe(urls().length);
    expect(kept.size).toBe(urls().length);
    const metrics = (await keeping.inject('/metrics')).body;
    expect(Number(/^reward_profile_lookups_total\{result="reused"\} (\d+)$/m.exec(metrics)?.[1])).toBe(kept.lookups.reused);
    expect(metrics).toMatch(new RegExp(`^reward_profiles_kept_bytes ${kept.keptBytes}$`, 'm'));
  });

  it('answers a filtered profile without keeping it', async () => {
    const url = `/reward-kit?claimantAddress=${claimant}&actionType=mint,swap`;
    const size = kept.size;
    const [fromKept, fromBuilt] = await Promise.all([keeping.inject(url), building.inject(url)]);
    expect(fromKept.statusCode).toBe(200);
    expect(fromKept.json()).toEqual(fromBuilt.json());
    expect(kept.size).toBe(size);
  });

  let movedUsd = 0;
  // Each change moves one thing a profile shows; `shows` finds it in the answer, given the one before.
  const changes: { name: string; change: (before: RewardProfile) => Promise<unknown>; shows: (after: RewardProfile, before: RewardProfile) => void }[] = [
    {
      name: 'a claim by the claimant of an active reward',
      change: async (before) => {
        const key = await keyOf(before.activeCampaigns[0]!.id);
        await insertClaim(database.db, { campaignKey: key, claimant, claimedAt: new Date(now.getTime() - 60_000), usdValue: '2.5' });
      },
      shows: (after, before) => {
        expect(ids(after.claimedCampaigns)[0]).toBe(before.activeCampaigns[0]!.id);
        expect(ids(after.activeCampaigns)).not.toContain(before.activeCampaigns[0]!.id);
        expect(after.totalClaimedAmountUsd).toBeCloseTo(before.totalClaimedAmountUsd + 2.5, 6);
      },
    },
    {
      name: "a correction of the claimant's claim",
      change: () => run(sql`UPDATE claims SET usd_value = usd_value + 1000 WHERE id = (SELECT max(id) FROM claims WHERE claimant = ${claimant})`),
      shows: (after, before) => expect(after.totalClaimedAmountUsd).toBeCloseTo(before.totalClaimedAmountUsd + 1000, 6),
    },
    {
      // Only the claimant's own change tells: no listed campaign's entry moved.
      name: "a correction of the claimant's claim of a campaign its lists leave out",
      change: async (before) => {
        const listed = ids([...before.claimedCampaigns, ...before.claimableCampaigns, ...before.activeCampaigns]);
        const [unlisted] = await rows<{ id: number }>(
          sql`SELECT w.id FROM claims AS w JOIN campaigns AS c ON c.key = w.campaign_key
               WHERE w.claimant = ${claimant} AND NOT w.draw AND c.public_id <> ALL(${sql.param(listed)}::text[]) ORDER BY w.id LIMIT 1`,
        );
        expect(unlisted, 'a claim of a campaign the lists leave out').toBeDefined();
        await run(sql`UPDATE claims SET usd_value = usd_value + 100 WHERE id = ${unlisted!.id}`);
      },
      shows: (after, before) => expect(after.totalClaimedAmountUsd).toBeCloseTo(before.totalClaimedAmountUsd + 100, 6),
    },
    {
      name: "another claimant's claim moved to the claimant",
      change: async () => {
        const [moved] = await rows<{ id: number; usd: string }>(
          sql`SELECT id, usd_value::text AS usd FROM claims WHERE claimant <> ${claimant} AND usd_value > 0 AND NOT draw ORDER BY id DESC LIMIT 1`,
        );
        movedUsd = Number(moved!.usd);
        await run(sql`UPDATE claims SET claimant = ${claimant} WHERE id = ${moved!.id}`);
      },
      shows: (after, before) => expect(after.totalClaimedAmountUsd).toBeCloseTo(before.totalClaimedAmountUsd + movedUsd, 6),
    },
    {
      name: "the deletion of the claimant's claim",
      change: () => run(sql`DELETE FROM claims WHERE id = (SELECT max(id) FROM claims WHERE claimant = ${claimant})`),
      shows: (after, before) => expect(after.claimedCampaigns.length).toBe(before.claimedCampaigns.length - 1),
    },
    {
      name: 'a claim signature for the claimant',
      change: async (before) => {
        const key = await keyOf(before.activeCampaigns[0]!.id);
        await run(sql`INSERT INTO claim_signatures (campaign_key, claimant, incentive_id, signature, referrer)
                      VALUES (${key}, ${claimant}, 0, '0xfeedface', '0x0000000000000000000000000000000000000000')`);
      },
      shows: (after, before) => {
        expect(ids(after.claimableCampaigns)[0]).toBe(before.activeCampaigns[0]!.id);
        expect(after.totalClaimableAmountUsd).toBeGreaterThan(before.totalClaimableAmountUsd);
      },
    },
    {
      name: 'the signature used',
      change: () => run(sql`UPDATE claim_signatures SET used = true WHERE signature = '0xfeedface'`),
      shows: (after, before) => expect(after.claimableCampaigns.length).toBe(before.claimableCampaigns.length - 1),
    },
    {
      name: "someone else's claim of a listed reward, within the last hour",
      change: async (before) => {
        const key = await keyOf(before.activeCampaigns[0]!.id);
        await insertClaim(database.db, { campaignKey: key, claimedAt: new Date(now.getTime() - 59 * 60_000), usdValue: '7' });
      },
      shows: (after, before) =>
        expect(after.activeCampaigns[0]!.usdDistributed1Hr).toBeCloseTo(before.activeCampaigns[0]!.usdDistributed1Hr + 7, 6),
    },
    {
      name: 'the clock, as that claim leaves the hour (no write at all)',
      change: async () => {
        now = new Date(now.getTime() + 2 * 60_000);
      },
      shows: (after, before) =>
        expect(after.activeCampaigns[0]!.usdDistributed1Hr).toBeCloseTo(before.activeCampaigns[0]!.usdDistributed1Hr - 7, 6),
    },
    {
      name: 'the price of a token a listed reward pays',
      change: (before) =>
        run(sql`UPDATE tokens SET price_usd = price_usd * 3
                 WHERE (chain_id, address) IN (SELECT c.chain_id, i.asset_address FROM campaigns AS c
                                                 JOIN incentives AS i ON i.campaign_key = c.key
                                                WHERE c.public_id = ${before.activeCampaigns[0]!.id})`),
      shows: (after, before) =>
        expect(after.activeCampaigns[0]!.incentives[0]!.rewardUsdValue).not.toBe(before.activeCampaigns[0]!.incentives[0]!.rewardUsdValue),
    },
    {
      name: 'a new allow list that does not list the claimant',
      change: async (before) => {
        const key = await keyOf(before.activeCampaigns[0]!.id);
        await run(sql`INSERT INTO allow_lists (chain_id, contract_address, owner, type)
                      SELECT chain_id, '0x00000000000000000000000000000000000a11ce', '0x00000000000000000000000000000000000a11ce', 'SimpleAllowList'
                        FROM campaigns WHERE key = ${key}`);
        await run(sql`UPDATE campaigns SET allow_list_id = (SELECT id FROM allow_lists WHERE contract_address = '0x00000000000000000000000000000000000a11ce')
                       WHERE key = ${key}`);
      },
      shows: (after, before) => expect(ids(after.activeCampaigns)).not.toContain(before.activeCampaigns[0]!.id),
    },
    {
      name: 'that allow list opened to all (a reward not listed comes in)',
      change: () => run(sql`UPDATE allow_lists SET type = 'OpenAllowList' WHERE contract_address = '0x00000000000000000000000000000000000a11ce'`),
      shows: (after, before) => expect(after.activeCampaigns.length).toBe(before.activeCampaigns.length + 1),
    },
    {
      name: 'that allow list closed again',
      change: () => run(sql`UPDATE allow_lists SET type = 'SimpleAllowList' WHERE contract_address = '0x00000000000000000000000000000000000a11ce'`),
      shows: (after, before) => expect(after.activeCampaigns.length).toBe(before.activeCampaigns.length - 1),
    },
    {
      name: 'the claimant added to that allow list',
      change: () =>
        run(sql`INSERT INTO allow_list_addresses (allow_list_id, address)
                SELECT id, ${claimant} FROM allow_lists WHERE contract_address = '0x00000000000000000000000000000000000a11ce'`),
      shows: (after, before) => expect(after.activeCampaigns.length).toBe(before.activeCampaigns.length + 1),
    },
    {
      name: 'that allow list made an access list the claimant is not a member of',
      change: async () => {
        await run(sql`INSERT INTO access_lists (owner_user_id, name, icon) SELECT id, 'kept-profile test', 'icon' FROM users LIMIT 1`);
        await run(sql`UPDATE allow_lists SET type = 'OffchainAccessList', access_list_id = (SELECT id FROM access_lists WHERE name = 'kept-profile test')
                       WHERE contract_address = '0x00000000000000000000000000000000000a11ce'`);
      },
      shows: (after, before) => expect(after.activeCampaigns.length).toBe(before.activeCampaigns.length - 1),
    },
    {
      name: 'the claimant made a member of that access list',
      change: () =>
        run(sql`INSERT INTO access_list_members (access_list_id, address)
                SELECT id, ${claimant} FROM access_lists WHERE name = 'kept-profile test'`),
      shows: (after, before) => expect(after.activeCampaigns.length).toBe(before.activeCampaigns.length + 1),
    },
    {
      // Not in the profile yet: it starts in a second, which the next change lets pass.
      name: 'a campaign set to start a second later, as the newest',
      change: async () => {
        const [later] = await rows<{ key: number }>(
          sql`SELECT key FROM campaigns WHERE start_time > ${now} AND (end_time IS NULL OR end_time > ${now}) AND has_budget_left
                 AND allow_list_id IS NULL ORDER BY key LIMIT 1`,
        );
        expect(later, 'a campaign that has not started').toBeDefined();
        starting = (await rows<{ public_id: string }>(
          sql`UPDATE campaigns SET start_time = ${new Date(now.getTime() + 1000)}, block_timestamp = (SELECT max(block_timestamp) + 1 FROM campaigns)
               WHERE key = ${later!.key} RETURNING public_id`,
        ))[0]!.public_id;
      },
      shows: (after, before) => expect(after).toEqual(before),
    },
    {
      name: 'the clock, as that campaign starts (no write at all)',
      change: async () => {
        now = new Date(now.getTime() + 2000);
      },
      shows: (after, before) => {
        expect(after.activeCampaigns[0]!.id).toBe(starting);
        expect(after.activeCampaigns.slice(1)).toEqual(before.activeCampaigns);
      },
    },
    {
      name: 'the clock, past the end of a listed reward',
      change: async (before) => {
        const [ending] = await rows<{ end_time: string }>(
          sql`SELECT iso_utc(min(end_time)) AS end_time FROM campaigns
               WHERE public_id IN (SELECT unnest(${sql.param(ids(before.activeCampaigns))}::text[])) AND end_time > ${now}`,
        );
        now = new Date(new Date(ending!.end_time).getTime() + 1);
      },
      shows: (after, before) => expect(after.activeCampaigns.length).toBeLessThan(before.activeCampaigns.length),
    },
    {
      name: 'a listed campaign deleted',
      change: (before) => run(sql`DELETE FROM campaigns WHERE public_id = ${before.claimedCampaigns.at(-1)!.id}`),
      shows: (after, before) => expect(after.claimedCampaigns.length).toBe(before.claimedCampaigns.length - 1),
    },
  ];

  for (const { name, change, shows } of changes) {
    it(`builds the profile again after ${name}`, async () => {
      const before = await expectSameAnswers();
      // Kept: the next answer is the kept one, unless the change shows.
      const reused = kept.lookups.reused;
      await expectSameAnswers();
      expect(kept.lookups.reused - reused).toBe(urls().length);
      await change(before);
      const after = await expectSameAnswers();
      shows(after, before);
    });
  }

  it("shows a claimant's claim committed after the kept profile was read, by a transaction that began before", async () => {
    const before = await expectSameAnswers();
    const [first, second] = await Promise.all(before.activeCampaigns.slice(0, 2).map((entry) => keyOf(entry.id)));
    const claim = (campaign: number, usd: string) => ({ campaignKey: campaign, claimant, claimedAt: new Date(now.getTime() - 1000), usdValue: usd });
    if (!database.url) {
      // PGlite has one connection: the claims commit in order.
      await insertClaim(database.db, claim(first!, '3'));
      await insertClaim(database.db, claim(second!, '4'));
    } else {
      const a = new pg.Client({ connectionString: database.url });
      const b = new pg.Client({ connectionString: database.url });
      await Promise.all([a.connect(), b.connect()]);
      try {
        await a.query('BEGIN');
        await insertClaimOn(a, claim(first!, '3'));
        // A second writer of the same claimant does not wait for the first.
        await b.query("SET lock_timeout = '2s'");
        await insertClaimOn(b, claim(second!, '4'));
        // Kept while A is open: its claim is not in the answer, B's is.
        const whileOpen = await expectSameAnswers();
        expect(ids(whileOpen.claimedCampaigns)).toContain(before.activeCampaigns[1]!.id);
        expect(ids(whileOpen.claimedCampaigns)).not.toContain(before.activeCampaigns[0]!.id);
        const reused = kept.lookups.reused;
        await expectSameAnswers();
        expect(kept.lookups.reused - reused).toBe(urls().length);
        await a.query('COMMIT');
      } finally {
        await Promise.all([a.end(), b.end()]);
      }
    }
    const after = await expectSameAnswers();
    expect(ids(after.claimedCampaigns)).toEqual(expect.arrayContaining(ids(before.activeCampaigns.slice(0, 2))));
    expect(after.totalClaimedAmountUsd).toBeCloseTo(before.totalClaimedAmountUsd + 7, 6);
  });

  it('builds a kept profile again once the change feed was pruned past the snapshot it was read in', async () => {
    const before = await expectSameAnswers();
    // A prune as prune_claim_changes() leaves it: its horizon the oldest mark, newer than the kept profiles' snapshot.
    // The mark's snapshot is the one taken right after this transaction, with nothing else running:
    // pg_current_snapshot() would carry the xmin of any transaction open on the server meanwhile (other
    // test files share it), which can be as old as the kept snapshot's, and then nothing was pruned past it.
    await run(sql`DELETE FROM claim_change_marks`);
    await run(sql`
      INSERT INTO claim_change_marks (taken_at, snapshot)
      SELECT clock_timestamp(), (after::text || ':' || after::text || ':')::pg_snapshot
        FROM (SELECT pg_current_xact_id()::text::bigint + 1 AS after) AS next`);
    const { missed, reused } = kept.lookups;
    expect(await expectSameAnswers()).toEqual(before);
    expect(kept.lookups.missed - missed).toBe(urls().length);
    expect(kept.lookups.reused).toBe(reused);
  });
});
