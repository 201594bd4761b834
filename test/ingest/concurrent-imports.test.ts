import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { importNdjson } from '../../src/ingest/ndjson-source.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address } from '../helpers/factories.js';
import { baseRecords, lines } from '../helpers/records.js';

/**
 * Two imports that write the same rows in opposite order, at once: each locks its first row, then
 * waits for the other's, and PostgreSQL breaks the deadlock by failing one statement. The import it
 * failed writes again once the other has committed, so both succeed and the rows are those of the
 * later commit, all of them.
 *
 * The stand-in: a row trigger this test adds to `users` holds each import's first updated row until
 * the other import has locked its own first row too, so that the two meet every time; without it,
 * one import's statement would usually finish before the other's began. On PostgreSQL only: the
 * embedded PGlite has one session, where two transactions never run at once.
 */
const USERS = [address(0x20001), address(0x20002), address(0x20003)];

describe.runIf(inject('testDatabase').kind === 'postgres')('two imports writing the same rows in opposite order', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    await importNdjson(database, Readable.from([lines([...baseRecords(), ...USERS.map((user) => ({ kind: 'user', address: user, score: 1 }))])]));
    await database.db.execute(sql.raw(`
      CREATE SEQUENCE first_rows_locked;
      CREATE FUNCTION hold_first_row() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        deadline timestamptz := clock_timestamp() + interval '30 seconds';
      BEGIN
        IF current_setting('test.first_row_held', true) IS DISTINCT FROM 'on' THEN
          PERFORM set_config('test.first_row_held', 'on', true);
          PERFORM nextval('first_rows_locked');
          -- A sequence is outside transactions: each import sees the other's call at once.
          WHILE (SELECT last_value FROM first_rows_locked) < 2 LOOP
            IF clock_timestamp() > deadline THEN RAISE EXCEPTION 'the other import never locked a row'; END IF;
            PERFORM pg_sleep(0.005);
          END LOOP;
        END IF;
        RETURN NEW;
      END
      $$;
      CREATE TRIGGER hold_first_row BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION hold_first_row();
    `));
  });
  afterAll(async () => {
    await database?.close();
  });

  it('both succeed, the one PostgreSQL failed writes again, and every row is as the later commit wrote it', async () => {
    const retries: Record<string, number[]> = { ascending: [], descending: [] };
    const importUsers = (name: 'ascending' | 'descending', score: number) => {
      const order = name === 'ascending' ? USERS : [...USERS].reverse();
      return importNdjson(database, Readable.from([lines(order.map((user) => ({ kind: 'user', address: user, score })))]), {
        onRetry: (attempt) => retries[name]!.push(attempt),
      });
    };

    const [ascending, descending] = await Promise.all([importUsers('ascending', 10), importUsers('descending', 20)]);

    expect(ascending.user.updated).toBe(USERS.length);
    expect(descending.user.updated).toBe(USERS.length);
    // Exactly one was failed, once; it committed after the other, so its rows are the ones kept.
    expect([...retries.ascending!, ...retries.descending!]).toEqual([1]);
    const later = retries.ascending!.length === 1 ? 10 : 20;
    const rows = await queryRows<{ address: string; score: number }>(database.db, sql`SELECT address, score FROM users`);
    expect(rows.filter((row) => USERS.includes(row.address)).map((row) => row.score)).toEqual(USERS.map(() => later));
  });
});
