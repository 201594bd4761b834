import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign } from '../helpers/factories.js';

/**
 * The claim feed's trigger (claims_volume_feed()) pairs an update's old and new rows by id. PL/pgSQL
 * plans that statement at its first run in a session, for the transition tables' sizes then, and
 * keeps the plan: planned for an update that changed no claim, it joined the old and new rows
 * pairwise (a nested loop over both), and a later revaluation of a thousand claims on that session
 * took seconds. So the trigger ends an empty update before that statement. auto_explain logs the
 * plans of the statements inside the trigger: PostgreSQL only (PGlite has no auto_explain).
 */
describe.runIf(process.env.TEST_DATABASE_URL)("the claim feed's update, after an update that changed no claim", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    const campaign = await insertCampaign(database.db);
    await database.db.execute(
      sql`INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
          SELECT c.key, c.chain_id, 0, '0x' || lpad(to_hex(g), 40, '0'), 1, 1, 0, '0x' || lpad(to_hex(g), 64, '0'), 0, now() - g * interval '1 second'
            FROM campaigns AS c CROSS JOIN generate_series(1, 300) AS g WHERE c.key = ${campaign.key}`,
    );
  });

  afterAll(async () => {
    await database?.close();
  });

  it('pairs the old and new rows of 300 claims without comparing each with each', async () => {
    const client = new pg.Client({ connectionString: database.url });
    const feedPlans: string[] = [];
    client.on('notice', (notice) => {
      if (notice.message?.includes('plan:') && /Insert on claim_changes/.test(notice.message)) feedPlans.push(notice.message);
    });
    await client.connect();
    try {
      for (const setting of ['log_min_duration = 0', 'log_nested_statements = on', 'log_level = notice']) {
        await client.query(`SET auto_explain.${setting}`);
      }
      await client.query(`LOAD 'auto_explain'`);
      expect((await client.query('UPDATE claims SET usd_value = usd_value + 1 WHERE false')).rowCount).toBe(0);
      expect((await client.query('UPDATE claims SET usd_value = usd_value + 1')).rowCount).toBe(300);
    } finally {
      await client.end();
    }
    // The revaluation's rows reached the feed (300 changes of value), by a plan that does not test
    // every old row against every new one.
    const [revaluation] = await queryRows<{ changes: number }>(database.db, sql`SELECT count(*)::int AS changes FROM claim_changes WHERE sign = 0 AND usd_value = 1`);
    expect(revaluation!.changes).toBe(300);
    expect(feedPlans.at(-1)).not.toMatch(/Join Filter: \(\(n\.id = o\.id\)/);
    // The update that changed no claim ran no statement of the feed.
    expect(feedPlans).toHaveLength(1);
  });
});
