import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * Every transaction that writes events is numbered as it commits (order_event_commit(), a deferred
 * trigger on events): its event_commits row is inserted then, numbered, and never looked up again.
 * When the commit looked its row up to number it, statistics taken while the table was nearly empty
 * (a new database, a bulk load's ANALYZE, autovacuum off or not yet round) made the planner read the
 * whole table instead of its primary key, on every commit of every claim, at a cost growing with the
 * table. auto_explain logs the plan of every statement inside the trigger, so that is what this
 * reads: PostgreSQL only (PGlite has no auto_explain).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('numbering a transaction of events at its commit', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      // 20,000 numbered commits (written as a replica would, so that no trigger numbers them again),
      // as hours of claims leave the table, and the statistics an ANALYZE leaves when it ran while
      // the table held two live rows among its dead ones (as on a benchmark database: 2 rows for 374
      // pages): set directly, as no ANALYZE can be made to sample so.
      await client.query('SET session_replication_role = replica');
      await client.query(`INSERT INTO event_commits (xid, seq, committed_at)
                          SELECT g::text::xid8, g, now() - interval '1 minute' FROM generate_series(1, 20000) AS g`);
      await client.query("SELECT setval('event_commit_seq', 20000)");
      await client.query('ANALYZE event_commits');
      await client.query("UPDATE pg_class SET reltuples = 2 WHERE oid = 'event_commits'::regclass");
      // Pruned just now: the commit below has nothing to prune (it would once a minute), so every plan
      // that names event_commits is the numbering's.
      await client.query('UPDATE event_retention SET pruned_at = now()');
    } finally {
      await client.end();
    }
  });

  afterAll(async () => {
    await database?.close();
  });

  it('numbers the transaction with one insert, without reading event_commits, however stale its statistics are', async () => {
    const client = new pg.Client({ connectionString: database.url });
    const plans: string[] = [];
    const everyPlan: string[] = [];
    let committed = false;
    client.on('notice', (notice) => {
      if (committed || !notice.message?.includes('plan:')) return;
      everyPlan.push(notice.message);
      if (/event_commits/.test(notice.message) && !/UPDATE event_retention/.test(notice.message)) plans.push(notice.message);
    });
    await client.connect();
    try {
      for (const setting of ['log_min_duration = 0', 'log_nested_statements = on', 'log_level = notice']) {
        await client.query(`SET auto_explain.${setting}`);
      }
      // Random reads priced as on a disk that seeks (the default is 4): what tips this small table's
      // plan to reading it whole, as its size tipped it on the benchmark database.
      await client.query('SET random_page_cost = 8');
      await client.query(`LOAD 'auto_explain'`);
      await client.query('BEGIN');
      await client.query(`INSERT INTO events (type, data) VALUES ('refetch', '{}'), ('refetch', '{}')`);
      await client.query('COMMIT');
      committed = true;
      const [numbered] = (await client.query<{ seq: string }>('SELECT max(seq)::text AS seq FROM event_commits')).rows;
      expect(numbered!.seq).toBe('20001');
    } finally {
      await client.end();
    }
    // Two events, one transaction: one row, inserted, and no statement reads the table.
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatch(/Insert on event_commits/);
    expect(plans[0]).not.toMatch(/Scan (on|using \S+ on) event_commits/);
    // Nothing the commit runs is priced so high that PostgreSQL compiles it (JIT) first, on every commit.
    expect(everyPlan.length).toBeGreaterThan(1);
    expect(everyPlan.filter((plan) => plan.includes('JIT:'))).toEqual([]);
  });
});
