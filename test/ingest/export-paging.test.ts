import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRecords } from '../../src/ingest/export.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Export reads each table a page at a time by key: every row once, in key order, across page ends. */
describe('export across pages', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    // Two full pages of users and one more (a page is 5,000 rows).
    await database.db.execute(
      sql`INSERT INTO users (address, score) SELECT '0x' || lpad(to_hex(n), 40, '0'), n FROM generate_series(1, 10001) AS n`,
    );
  });
  afterAll(async () => {
    await database?.close();
  });

  it('writes every row once, in key order', async () => {
    const addresses: string[] = [];
    await database.bulkTransaction(async (session) => {
      for await (const record of exportRecords((query) => session.query(query))) if (record.kind === 'user') addresses.push(record.address);
    });
    expect(addresses).toHaveLength(10001);
    expect(new Set(addresses).size).toBe(10001);
    expect(addresses).toEqual([...addresses].sort());
  });
});
