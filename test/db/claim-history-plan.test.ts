import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/**
 * The history's claimant counts (claim_history_buckets(), run by apply_claim_history(): was each
 * claimant of the changes in its hour and day before, is it now?) look up each claimant's claims of a
 * bucket. A busy campaign has thousands of claims in one hour; read through the campaign's index,
 * each claimant's lookup reads all of them, and a batch of 2,000 claims took twenty seconds. The
 * planner took that index whenever it estimated both indexes at one row, as it does on a generic plan
 * before claims has statistics (a new database, or autovacuum not yet round). auto_explain logs the
 * plan of the statement inside the applier, so that is what this reads: PostgreSQL only (PGlite has
 * no auto_explain).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('the history applier counting claimants of a busy hour', () => {
  let database: TestDatabase;
  let campaignKey: number;
  const HOUR = '2026-11-20T10:00:00Z';

  /** `count` claims of the campaign from claimant `first` on, each of its own, in the hour. */
  const claimsInTheHour = (first: number, count: number) =>
    `INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index)
     SELECT ${campaignKey}, 0, '0x' || lpad(to_hex(g), 40, '0'), 1000000, 1, 1, '0x' || lpad(to_hex(g), 64, '0'),
            '${HOUR}'::timestamptz + (g % 3600) * interval '1 second', 8453, 0
       FROM generate_series(${first}, ${first + count - 1}) AS g`;

  beforeAll(async () => {
    database = await createTestDatabase();
    // No statistics on claims, as in a database autovacuum has not analyzed yet.
    await database.db.execute(sql`ALTER TABLE claims SET (autovacuum_enabled = false)`);
    const token = await insertToken(database.db);
    campaignKey = (await insertCampaign(database.db, { incentives: [erc20Incentive(token.address, '1000000000000', '1')] })).key;
    // Enough claims that the claimant index, whose keys are long, is a level deeper than the
    // campaign's: the one that then costs a little less for a row.
    await database.db.execute(sql.raw(claimsInTheHour(0x100000, 20_000)));
    await database.db.execute(sql`SELECT apply_claim_history()`);
  });
  afterAll(() => database?.close());

  /** The plan of the applier's claimant counting for the claims `statement` writes, applied and rolled back. */
  const countingPlan = async (statement: string): Promise<string> => {
    const client = new pg.Client({ connectionString: database.url });
    const plans: string[] = [];
    client.on('notice', (notice) => {
      if (notice.message?.includes('claim_history_buckets(applied')) plans.push(notice.message);
    });
    await client.connect();
    try {
      for (const setting of ['log_min_duration = 0', 'log_nested_statements = on', 'log_level = notice', 'log_analyze = on', 'log_timing = off', 'log_buffers = on']) {
        await client.query(`SET auto_explain.${setting}`);
      }
      await client.query(`LOAD 'auto_explain'`);
      await client.query('BEGIN');
      await client.query(statement);
      await client.query('SELECT apply_claim_history()');
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
    expect(plans).toHaveLength(1);
    return plans[0]!;
  };

  it("reads each claimant's own claims of the bucket, not the campaign's", async () => {
    const plan = await countingPlan(claimsInTheHour(0x200000, 200));
    // The counting of claimants alone: counting the hour's claims again (claim_history_hours()) reads
    // the campaign's index, as it should.
    const counting = plan.slice(plan.indexOf('CTE counted'), plan.indexOf('CTE Scan on counted'));
    expect(counting, plan).toMatch(/Index (Only )?Scan using claims_claimant_campaign_idx on claims c(_\d+)?\b/);
    expect(counting, plan).not.toContain('claims_campaign_claimed_at_idx');
    expect(plan).not.toMatch(/Seq Scan on claims\b/);
  });

  it("starts each claimant's lookup at the bucket, not at the claimant's first claim", async () => {
    // A claimant with 20,000 claims of the campaign before the hour: its lookup must not read them.
    const busyClaimant = `0x${'b'.repeat(40)}`;
    await database.db.execute(
      sql.raw(`INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index)
               SELECT ${campaignKey}, 0, '${busyClaimant}', 1, 1, 1, '0x${'b'.repeat(64)}', '${HOUR}'::timestamptz - g * interval '1 minute', 8453, g
                 FROM generate_series(1, 20000) AS g`),
    );
    await database.db.execute(sql`SELECT apply_claim_history()`);
    const plan = await countingPlan(
      `INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index)
       VALUES (${campaignKey}, 0, '${busyClaimant}', 1, 1, 1, '0x${'c'.repeat(64)}', '${HOUR}'::timestamptz + interval '5 minutes', 8453, 0)`,
    );
    // Every lookup of the claimant's claims (in its hour and day, its first claim) and the pages it
    // read: a few, where reading the claimant's earlier claims takes hundreds.
    const lookups = [...plan.matchAll(/Scan using claims_claimant_campaign_idx on claims c(?:_\d+)? [^\n]*\n(?:(?!\s*->)[^\n]*\n)*?\s*Buffers: shared hit=(\d+)/g)];
    expect(lookups.length, plan).toBeGreaterThan(0);
    for (const [, pages] of lookups) expect(Number(pages), plan).toBeLessThan(20);
  });
});
