import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaimWindowsRepository } from '../../src/claim-volumes/repository.js';
import { ClaimFeedListener } from '../../src/claim-volumes/feed-listener.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign } from '../helpers/factories.js';

/**
 * Every request that reads claim volumes first polls the change feed (claim_changes_after(), inlined
 * into a named statement on the feed's own session; claim_changes_since() through the pool), and
 * claim_changes holds ten minutes of changes: thousands of rows while claims stream in. The poll's
 * cached generic plan must read them through claim_changes_xid_idx from the snapshot's xmin on, not
 * the whole table (1.4 ms a poll at 10,000 rows, where the index takes 0.02), which the planner chose
 * once pruning had left the table out of xid order. auto_explain logs the plans, of the statement inside
 * the PL/pgSQL function and of the session's named statement, so that is what this reads: PostgreSQL
 * only (PGlite has no auto_explain).
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
                     INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign, claimant)
                     SELECT ${campaign.key}, '8453:0x' || repeat('ab', 20) || ':' || repeat('7', 70), now(), 1.5, 1, '0x' || repeat('cd', 20)
                       FROM generate_series(1, 4);
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
    // The statement inside claim_changes_since(), with claim_changes_after() inlined into it.
    expectIndexedGenericPlans(logged.filter((message) => message.includes('claim_changes_after(since, max_changes)')));
  });

  it('on the feed session: the named statement, claim_changes_after() inlined, reads the xid index on a generic plan', async () => {
    const logged: string[] = [];
    const feed = new ClaimFeedListener({
      url: database.url!,
      connectTimeoutMs: 2000,
      applicationName: 'claim-feed-plan',
      logger: { info: () => undefined, warn: () => undefined },
      reads: { statementTimeoutMs: 5000, queryTimeoutMs: 6000 },
    });
    feed.start();
    try {
      const deadline = Date.now() + 5000;
      while (!feed.listening && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const repository = createClaimWindowsRepository(database.db);
      await feed.readOnSession(async (session) => {
        session.on('notice', (notice) => logged.push(notice.message ?? ''));
        await session.query(`LOAD 'auto_explain'`);
        await session.query('SET auto_explain.log_min_duration = 0');
        await session.query('SET client_min_messages = log');
        const { rows } = await session.query<{ snapshot: string }>('SELECT pg_current_snapshot()::text AS snapshot');
        // Past the fifth execution too, where the plan cache would otherwise weigh a generic plan.
        for (let call = 0; call < 7; call++) {
          const read = await repository.changesSince({ snapshot: rows[0]!.snapshot, atMs: Date.now() }, 1000, session);
          expect(read.changes).toEqual([]);
        }
      });
    } finally {
      await feed.close();
    }
    expectIndexedGenericPlans(logged.filter((message) => message.includes('claim_changes_after($1')));
  });
});

/**
 * Seven polls' plans, each reading claim_changes through its xid index from the snapshot's xmin on, on
 * a generic plan (the snapshot a parameter, not folded into a constant), claim_changes_after() inlined
 * (no function scan).
 */
function expectIndexedGenericPlans(plans: string[]): void {
  expect(plans).toHaveLength(7);
  for (const plan of plans) {
    expect(plan).toMatch(/Index (Only )?Scan using claim_changes_xid_idx on claim_changes x/);
    expect(plan).toMatch(/Index Cond: \(xid >= pg_snapshot_xmin\(\$1\)\)/);
    expect(plan).not.toMatch(/Seq Scan on claim_changes x/);
    expect(plan).not.toMatch(/Function Scan/);
  }
}
