import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign } from '../helpers/factories.js';

/**
 * The claim feed's trigger (claims_volume_feed()) and the claims' events (claims_events()) pair an
 * update's old and new rows by id. A plan PL/pgSQL keeps from the session's first update, made for
 * transition tables of one claim or none, joins them pairwise (a nested loop over both), and a later
 * revaluation of a thousand claims through it took seconds. So those statements are planned at every
 * update, for its sizes. auto_explain logs the plans of the statements inside the triggers:
 * PostgreSQL only (PGlite has no auto_explain).
 */
describe.runIf(process.env.TEST_DATABASE_URL)("the claims' update triggers, after updates of one claim and of none", () => {
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

  it('pair the old and new rows of 300 claims without comparing each with each', async () => {
    const client = new pg.Client({ connectionString: database.url });
    const plans: string[] = [];
    client.on('notice', (notice) => {
      if (notice.message?.includes('plan:')) plans.push(notice.message);
    });
    await client.connect();
    try {
      for (const setting of ['log_min_duration = 0', 'log_nested_statements = on', 'log_level = notice']) {
        await client.query(`SET auto_explain.${setting}`);
      }
      await client.query(`LOAD 'auto_explain'`);
      expect((await client.query('UPDATE claims SET usd_value = usd_value + 1 WHERE false')).rowCount).toBe(0);
      expect((await client.query('UPDATE claims SET usd_value = usd_value + 1 WHERE id = (SELECT min(id) FROM claims)')).rowCount).toBe(1);
      expect((await client.query('UPDATE claims SET usd_value = usd_value + 1')).rowCount).toBe(300);
    } finally {
      await client.end();
    }
    // Every value change reached the feed and the events: 1 + 300 of each.
    const [counts] = await queryRows<{ changes: number; events: number }>(
      database.db,
      sql`SELECT (SELECT count(*)::int FROM claim_changes WHERE sign = 0 AND usd_value = 1) AS changes,
                 (SELECT count(*)::int FROM events WHERE type = 'claim.written') AS events`,
    );
    expect(counts).toEqual({ changes: 301, events: 300 + 300 + 1 });
    const pairing = (target: string) => plans.filter((plan) => plan.includes(`Insert on ${target}`) && /old_claims AS o\s+JOIN new_claims AS n USING \(id\)/.test(plan));
    for (const target of ['claim_changes', 'events']) {
      // One pairing statement for each update that changed claims, none for the one that changed none.
      expect(pairing(target), target).toHaveLength(2);
      expect(pairing(target).at(-1), target).not.toMatch(/Join Filter: \(+[no]\.id = [no]\.id/);
    }
  });
});
