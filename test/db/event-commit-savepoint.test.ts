import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * A transaction is numbered at its commit by the deferred trigger on its events
 * (order_event_commit()): events rolled back with a savepoint take their trigger calls with them, so a
 * transaction whose every event was rolled back gets no position, and one that keeps some gets one.
 */
describe('numbering a transaction whose events were partly rolled back', () => {
  let database: TestDatabase;
  const rolledBack = new Error('rolled back to the savepoint');

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database?.close();
  });

  const insertEvent = (tx: Pick<TestDatabase['db'], 'execute'>, reason: string) =>
    tx.execute(sql`INSERT INTO events (type, data) VALUES ('refetch', jsonb_build_object('reason', ${reason}::text))`);

  /** An event inserted in a savepoint of `tx` that is then rolled back. */
  const insertRolledBack = (tx: Pick<TestDatabase['db'], 'transaction'>) =>
    tx
      .transaction(async (savepoint) => {
        await insertEvent(savepoint, 'gone');
        throw rolledBack;
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });

  /** The positions and the reasons of the events committed after `seq`. */
  const committedAfter = (seq: number) =>
    queryRows<{ seq: number; reason: string }>(
      database.db,
      sql`SELECT c.seq::float8 AS seq, e.data->>'reason' AS reason
            FROM event_commits AS c JOIN events AS e ON e.xid = c.xid
           WHERE c.seq > ${seq} ORDER BY c.seq, e.id`,
    );
  const head = async () => (await queryRows<{ seq: number }>(database.db, sql`SELECT coalesce(max(seq), 0)::float8 AS seq FROM event_commits`))[0]!.seq;

  it('gives no position to a transaction whose every event was rolled back', async () => {
    const before = await head();
    await database.db.transaction(async (tx) => {
      await insertRolledBack(tx);
    });
    expect(await committedAfter(before)).toEqual([]);
    expect(await head()).toBe(before);
  });

  it('numbers once a transaction that keeps events written before and after a rolled-back savepoint', async () => {
    const before = await head();
    await database.db.transaction(async (tx) => {
      await insertEvent(tx, 'kept first');
      await insertRolledBack(tx);
      await insertEvent(tx, 'kept last');
    });
    expect(await committedAfter(before)).toEqual([
      { seq: before + 1, reason: 'kept first' },
      { seq: before + 1, reason: 'kept last' },
    ]);
  });

  it('numbers a transaction whose only kept events follow a rolled-back savepoint that held the first', async () => {
    const before = await head();
    await database.db.transaction(async (tx) => {
      await insertRolledBack(tx);
      await insertEvent(tx, 'kept');
    });
    expect(await committedAfter(before)).toEqual([{ seq: before + 1, reason: 'kept' }]);
  });
});
