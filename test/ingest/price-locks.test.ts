import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BulkSession, queryRows } from '../../src/db/client.js';
import { claims, tokenPrices } from '../../src/db/schema.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import { writePrices } from '../../src/ingest/prices.js';
import { ingest } from '../../src/ingest/write.js';
import { NATIVE_TOKEN_ADDRESS, type PriceQuote } from '../../src/prices/source.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/**
 * A claim written while its price is being written, in two real concurrent transactions, held open
 * at the point where each would miss the other: the claim ends valued either way, and a price of
 * another chain does not wait. The embedded database has one connection, so two transactions
 * cannot overlap there: these run on PostgreSQL only (CI's TEST_DATABASE_URL).
 */
const T = new Date('2026-06-01T12:00:00.000Z');
const CHAIN = 8453;
const OTHER_CHAIN = 10;

describe.skipIf(!process.env.TEST_DATABASE_URL)('claims and prices written side by side', () => {
  let database: TestDatabase;
  let asset: string;
  let campaign: { key: number; publicId: string };
  let logIndex = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ address: asset } = await insertToken(database.db, { chainId: CHAIN, decimals: 6, priceUsd: null }));
    campaign = await insertCampaign(database.db, { chainId: CHAIN, incentives: [erc20Incentive(asset, '1000000', '1000')] });
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await database.db.delete(claims);
    await database.db.delete(tokenPrices);
  });

  const prices = (chainId = CHAIN): PriceQuote[] => [
    { chainId, address: chainId === CHAIN ? asset : `0x${'ab'.repeat(20)}`, at: new Date(T.getTime() - 600_000), priceUsd: '2', source: 'defillama' },
    { chainId, address: NATIVE_TOKEN_ADDRESS, at: new Date(T.getTime() - 600_000), priceUsd: '4000', source: 'defillama' },
  ];
  const claim = (hold?: Promise<void>, merged?: () => void, beforeMerge?: (session: BulkSession) => Promise<void>) =>
    ingest(
      database,
      memorySource([
        {
          kind: 'claim',
          chainId: CHAIN,
          txHash: `0x${(++logIndex).toString(16).padStart(64, '0')}`,
          logIndex,
          campaign: campaign.publicId,
          incentivePosition: 0,
          claimant: '0x00000000000000000000000000000000000000aa',
          amount: '1500000',
          claimedAt: T.toISOString(),
        },
      ]),
      {
        derived: 'live',
        beforeMerge,
        beforeCommit: async () => {
          merged?.();
          await hold;
        },
      },
    );
  const stored = () =>
    queryRows<{ usd: string; eth: string; pending: boolean }>(
      database.db,
      sql`SELECT usd_value::text AS usd, eth_value_wei::text AS eth, value_pending AS pending FROM claims`,
    );
  /** Backends of this database waiting for an advisory lock, seen from a third connection. */
  const waitingForLock = async () =>
    (
      await queryRows<{ waiting: number }>(
        database.db,
        sql`SELECT count(*)::int AS waiting FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
      )
    )[0]!.waiting;
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  };
  const valued = [{ usd: '3.000000', eth: '750000000000000', pending: false }];

  it('a price written while a claim is being written waits for it, and values it', async () => {
    const hold = gate();
    const merged = gate();
    const claimWrite = claim(hold.opened, merged.open);
    await merged.opened;
    // The claim is written (waiting: no price yet) and not committed; the price write must wait.
    const priceWrite = writePrices(database, prices());
    try {
      await expect.poll(waitingForLock, { timeout: 5000 }).toBe(1);
    } finally {
      hold.open();
    }
    await claimWrite;
    expect((await priceWrite).valued).toBe(1);
    expect(await stored()).toEqual(valued);
  });

  it('a claim written while a price is being written waits for it, and is valued with it', async () => {
    const hold = gate();
    const written = gate();
    const priceWrite = writePrices(database, prices(), {
      beforeCommit: async () => {
        written.open();
        await hold.opened;
      },
    });
    await written.opened;
    const claimWrite = claim();
    try {
      await expect.poll(waitingForLock, { timeout: 5000 }).toBe(1);
    } finally {
      hold.open();
    }
    await priceWrite;
    await claimWrite;
    expect(await stored()).toEqual(valued);
  });

  it('a claim write that locks its campaigns before merging (as the indexer does) and a price write do not deadlock', async () => {
    const hold = gate();
    const locked = gate();
    const claimWrite = claim(undefined, undefined, async (session) => {
      await session.query(sql`SELECT 1 FROM campaigns WHERE key = ${campaign.key} FOR UPDATE`);
      locked.open();
      await hold.opened;
    });
    await locked.opened;
    // The price write's trigger refreshes the campaign's document (the token's price moves).
    const priceWrite = writePrices(database, [{ ...prices()[0]!, at: new Date() }, ...prices()]);
    try {
      await expect.poll(waitingForLock, { timeout: 5000 }).toBe(1);
    } finally {
      hold.open();
    }
    await claimWrite;
    expect((await priceWrite).valued).toBe(1);
  });

  it('an import carrying a token price waits for a claim being written on its chain', async () => {
    const hold = gate();
    const merged = gate();
    const claimWrite = claim(hold.opened, merged.open);
    await merged.opened;
    const [token] = await queryRows<{ id: string; name: string; symbol: string; image_uri: string }>(
      database.db,
      sql`SELECT id::text, name, symbol, image_uri FROM tokens WHERE address = ${asset}`,
    );
    const tokenImport = ingest(
      database,
      memorySource([{ kind: 'token', chainId: CHAIN, address: asset, id: token!.id, name: token!.name, symbol: token!.symbol, decimals: 6, imageUri: token!.image_uri, priceUsd: '2' }]),
      { derived: 'live' },
    );
    try {
      await expect.poll(waitingForLock, { timeout: 5000 }).toBe(1);
    } finally {
      hold.open();
    }
    await claimWrite;
    await tokenImport;
    await database.db.execute(sql`UPDATE tokens SET price_usd = NULL WHERE address = ${asset}`);
  });

  it('a price of another chain does not wait for a claim being written', async () => {
    const hold = gate();
    const merged = gate();
    const claimWrite = claim(hold.opened, merged.open);
    await merged.opened;
    const other = await writePrices(database, prices(OTHER_CHAIN)).finally(hold.open);
    expect(other.written).toBe(2);
    await claimWrite;
    expect(await stored()).toEqual([{ usd: '0.000000', eth: '0', pending: true }]);
  });
});
