import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign, insertClaim } from '../helpers/factories.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import { generateDataset } from '../../src/seed/dataset.js';

/** A claim is identified by its chain, transaction hash and log index (docs/writing-data.md). */
describe('the claims natural key', () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.close());

  const errorCode = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return 'none';
    } catch (error) {
      const cause = (error as { cause?: { code?: string }; code?: string }).cause ?? error;
      return (cause as { code?: string }).code;
    }
  };

  it('refuses a second claim with the same chain, transaction hash and log index', async () => {
    const campaign = await insertCampaign(database.db, { chainId: 10 });
    const txHash = `0x${'ab'.repeat(32)}`;
    await insertClaim(database.db, { campaignKey: campaign.key, txHash, logIndex: 3 });
    await insertClaim(database.db, { campaignKey: campaign.key, txHash, logIndex: 4 });
    expect(await errorCode(insertClaim(database.db, { campaignKey: campaign.key, txHash, logIndex: 3 }))).toBe('23505');
    // The same transaction hash and log index on another chain is another claim.
    const elsewhere = await insertCampaign(database.db, { chainId: 8453 });
    expect(await errorCode(insertClaim(database.db, { campaignKey: elsewhere.key, txHash, logIndex: 3 }))).toBe('none');
  });

  it("refuses a claim whose chain is not its campaign's, written or moved there", async () => {
    const campaign = await insertCampaign(database.db, { chainId: 10 });
    expect(await errorCode(insertClaim(database.db, { campaignKey: campaign.key, chainId: 8453 }))).toBe('23503');
    const claim = await insertClaim(database.db, { campaignKey: campaign.key });
    const elsewhere = await insertCampaign(database.db, { chainId: 8453 });
    expect(
      await errorCode(database.db.execute(sql`UPDATE claims SET campaign_key = ${elsewhere.key} WHERE id = ${claim.id}`)),
    ).toBe('23503');
    // Moved with its chain, it is its new campaign's claim.
    await database.db.execute(sql`UPDATE claims SET campaign_key = ${elsewhere.key}, chain_id = 8453 WHERE id = ${claim.id}`);
  });

  it("keeps a campaign's chain, with or without claims, and lets every other change through", async () => {
    const claimed = await insertCampaign(database.db, { chainId: 10 });
    await insertClaim(database.db, { campaignKey: claimed.key });
    const unclaimed = await insertCampaign(database.db, { chainId: 10 });
    for (const campaign of [claimed, unclaimed]) {
      expect(await errorCode(database.db.execute(sql`UPDATE campaigns SET chain_id = 8453 WHERE key = ${campaign.key}`))).toBe('23000');
      // The same chain written again is no change.
      expect(await errorCode(database.db.execute(sql`UPDATE campaigns SET chain_id = 10 WHERE key = ${campaign.key}`))).toBe('none');
      expect(await errorCode(database.db.execute(sql`UPDATE campaigns SET campaign_name = 'renamed' WHERE key = ${campaign.key}`))).toBe('none');
    }
  });
});

const server = inject('testDatabase');

/**
 * The plans of the claims trigger's chain check, read back through auto_explain. Under EXISTS the
 * planner took a nested loop comparing every claim with every campaign while a bulk load (the
 * seeder, an import into an empty database) has the indexes set aside: a million claims into 100,000
 * campaigns took hours. And PL/pgSQL keeps a statement's first plan for the session: made for a
 * large batch, it had every later single claim scan all campaigns.
 */
describe.runIf(server.kind === 'postgres')('the chain check of many claims at once', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 2000, claims: 0, seed: 7, now: new Date('2026-11-01T00:00:00Z') }));
  });
  afterAll(() => database.close());

  /** Claims of the first `count` incentives, in one statement; with `otherChain`, the last names a chain not its campaign's. */
  const claimsOfIncentives = (count: number, tag: number, otherChain = false) =>
    `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
     SELECT i.campaign_key, CASE WHEN ${otherChain} AND i.n = ${count} THEN c.chain_id + 1 ELSE c.chain_id END, i.position,
            '0x' || lpad(to_hex(i.n), 40, '0'), 1, 1, 0, '0x' || lpad(to_hex(${tag}), 32, '0') || lpad(to_hex(i.n), 32, '0'), 0, now()
       FROM (SELECT campaign_key, position, row_number() OVER (ORDER BY campaign_key, position) AS n FROM incentives) AS i
       JOIN campaigns AS c ON c.key = i.campaign_key
      WHERE i.n <= ${count}`;

  /** Runs `statements` in one session and transaction (rolled back), and returns the chain check's plans and the error code. */
  const inSession = async (statements: string[]) => {
    const client = new pg.Client({ connectionString: database.url });
    const plans: string[] = [];
    client.on('notice', (notice) => {
      if (notice.message?.includes('new_claims AS n LEFT JOIN campaigns')) plans.push(notice.message);
    });
    await client.connect();
    try {
      for (const setting of ['log_min_duration = 0', 'log_nested_statements = on', 'log_level = notice']) {
        await client.query(`SET auto_explain.${setting}`);
      }
      await client.query(`LOAD 'auto_explain'`);
      await client.query('BEGIN');
      let error: string | undefined;
      for (const statement of statements) {
        error = await client.query(statement).then(
          () => undefined,
          (failure: { code?: string }) => failure.code,
        );
        if (error !== undefined) break;
      }
      return { plans, error };
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    }
  };
  /** The quadratic plan: a nested loop over the claims with the campaigns' whole table inside it. */
  const everyCampaignPerClaim = /Nested Loop[\s\S]*Seq Scan on campaigns/;
  const bulkLoad = ["SELECT set_config('campaign_service.defer_refresh', 'on', true)", 'ALTER TABLE campaigns DROP CONSTRAINT campaigns_pkey CASCADE'];

  it('is no nested loop over every campaign while a bulk load has set the indexes aside', async () => {
    const { plans, error } = await inSession([...bulkLoad, claimsOfIncentives(1500, 1)]);
    expect(error).toBeUndefined();
    expect(plans).toHaveLength(1);
    expect(plans[0]).not.toMatch(everyCampaignPerClaim);
  });

  // 400: a batch that a hash join over these 2,000 campaigns serves best, as an indexer's backfill
  // over a mid-sized set of campaigns would write.
  it.each([1500, 400])('looks a single claim up by primary key after a batch of %i in the same session', async (batch) => {
    const { plans, error } = await inSession([claimsOfIncentives(batch, 2), claimsOfIncentives(1, 3)]);
    expect(error).toBeUndefined();
    expect(plans).toHaveLength(2);
    expect(plans[1]).toContain('Index Scan using campaigns_pkey');
    expect(plans[1]).not.toContain('Seq Scan on campaigns');
  });

  it('still refuses a claim of another chain among many, and among few', async () => {
    expect((await inSession([...bulkLoad, claimsOfIncentives(1500, 4, true)])).error).toBe('23503');
    expect((await inSession([claimsOfIncentives(1500, 5, true)])).error).toBe('23503');
    expect((await inSession([claimsOfIncentives(3, 6, true)])).error).toBe('23503');
  });
});
