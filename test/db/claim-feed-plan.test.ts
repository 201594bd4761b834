import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign } from '../helpers/factories.js';

/**
 * Every request that reads claim volumes first polls the change feed (claim_changes_since()), and
 * claim_changes holds ten minutes of changes: thousands of rows while claims stream in. The poll's
 * cached generic plan must read them through claim_changes_xid_idx from the snapshot's xmin on, not
 * the whole table (1.4 ms a poll at 10,000 rows, where the index takes 0.02), which the planner chose
 * once pruning had left the table out of xid order. The plan of a statement
 * inside a function is what auto_explain logs, so that is what this reads: PostgreSQL only (PGlite has
 * no auto_explain).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('the claim feed poll', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    const campaign = await insertCampaign(database.db);
    // As claims arrive and the feed is pruned: changes from thousands of transactions, each with a
    // campaign's long public ID, the older ones deleted in between.
    const arrive = (transactions: number) =>
      database.db.execute(
        sql.raw(`DO $$ BEGIN
                   FOR t IN 1..${transactions} LOOP
                     INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign)
                     SELECT ${campaign.key}, '8453:0x' || repeat('ab', 20) || ':' || repeat('7', 70), now(), 1.5, 1 FROM generate_series(1, 4);
                     COMMIT;
                   END LOOP;
                 END $$`),
      );
    for (let round = 0; round < 3; round++) {
      await arrive(1500);
      await database.db.execute(sql`DELETE FROM claim_changes WHERE xid < (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY xid::text::bigint) FROM claim_changes)::text::xid8`);
      await database.db.execute(sql`VACUUM claim_changes`);
    }
    await arrive(1500);
    await database.db.execute(sql`ANALYZE`);
  });
  afterAll(() => database?.close());

  it('reads claim_changes through its xid index, on its generic plan', async () => {
    const client = new pg.Client({ connectionString: database.url });
    const logged: string[] = [];
    client.on('notice', (notice) => logged.push(notice.message ?? ''));
    await client.connect();
    try {
      await client.query(`LOAD 'auto_explain'`);
      await client.query('SET auto_explain.log_min_duration = 0');
      await client.query('SET auto_explain.log_nested_statements = on');
      await client.query('SET client_min_messages = log');
      // Past the fifth call too, where a plan cache would otherwise have settled on a generic plan.
      for (let call = 0; call < 7; call++) {
        const { rows } = await client.query<{ campaign_key: number | null }>('SELECT * FROM claim_changes_since(pg_current_snapshot(), 1000)');
        expect(rows.map((row) => row.campaign_key)).toEqual([null]);
      }
    } finally {
      await client.end();
    }
    const polls = logged.filter((message) => message.includes('FROM claim_changes AS x'));
    expect(polls).toHaveLength(7);
    for (const plan of polls) {
      expect(plan).toMatch(/Index (Only )?Scan using claim_changes_xid_idx on claim_changes x/);
      expect(plan).not.toMatch(/Seq Scan on claim_changes x/);
    }
  });
});
