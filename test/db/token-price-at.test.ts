import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** token_price_at(): a token's price at an instant, by the rule claim_value values claims with. */
describe('token_price_at', () => {
  let database: TestDatabase;
  const TOKEN = `0x${'ab'.repeat(20)}`;
  const ZERO = `0x${'0'.repeat(40)}`;
  const EEEE = `0x${'e'.repeat(40)}`;
  const AT = '2026-11-28T12:00:00.000Z';

  const priceAt = async (address: string, at = AT) =>
    (await queryRows<{ price: string | null }>(database.db, sql`SELECT token_price_at(8453, ${address}, ${at}::timestamptz)::text AS price`))[0]!.price;

  beforeAll(async () => {
    database = await createTestDatabase();
    await database.db.execute(sql`
      INSERT INTO token_prices (chain_id, address, at, source, price_usd) VALUES
        (8453, ${TOKEN}, '2026-11-28T09:59:59Z', 'defillama', 100),
        (8453, ${TOKEN}, '2026-11-28T11:00:00Z', 'defillama', 2),
        (8453, ${TOKEN}, '2026-11-28T11:00:00Z', 'import', 3),
        (8453, ${TOKEN}, '2026-11-28T12:00:01Z', 'defillama', 50),
        (10, ${TOKEN}, '2026-11-28T11:59:00Z', 'defillama', 7),
        (8453, ${ZERO}, '2026-11-28T11:00:00Z', 'defillama', 3000),
        (8453, ${EEEE}, '2026-11-28T11:30:00Z', 'import', 3100)`);
  });
  afterAll(() => database?.close());

  it('is the newest price of the two hours up to the instant, an import first at the same instant, of the same chain', async () => {
    expect(await priceAt(TOKEN)).toBe('3.000000000000000000');
    // Nothing from after the instant; nothing older than two hours.
    expect(await priceAt(TOKEN, '2026-11-28T10:59:59.999Z')).toBe('100.000000000000000000');
    expect(await priceAt(TOKEN, '2026-11-28T12:00:00.000Z')).toBe('3.000000000000000000');
    expect(await priceAt(TOKEN, '2026-11-28T13:00:00.001Z')).toBe('50.000000000000000000');
    expect(await priceAt(TOKEN, '2026-11-28T11:59:59.000Z')).toBe('3.000000000000000000');
    expect(await priceAt(TOKEN, '2026-11-28T09:59:58.000Z')).toBeNull();
    expect(await priceAt(`0x${'cd'.repeat(20)}`)).toBeNull();
  });

  it("answers for the native token by either of its names, the newest of both", async () => {
    expect(await priceAt(ZERO)).toBe('3100.000000000000000000');
    expect(await priceAt(EEEE)).toBe('3100.000000000000000000');
    expect(await priceAt(ZERO, '2026-11-28T11:15:00.000Z')).toBe('3000.000000000000000000');
  });
});
