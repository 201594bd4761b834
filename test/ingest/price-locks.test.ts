import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claims, tokenPrices, tokens } from '../../src/db/schema.js';
import { writeRecords } from '../../src/ingest/direct.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import { writePrices } from '../../src/ingest/prices.js';
import type { IngestRecord } from '../../src/ingest/records.js';
import { ingest, type IngestOptions } from '../../src/ingest/write.js';
import { confirmBasis, emptyBasis } from '../../src/indexer/basis.js';
import { storedCampaigns } from '../../src/indexer/store.js';
import { NATIVE_TOKEN_ADDRESS, type PriceQuote } from '../../src/prices/source.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { unvaluedClaims } from '../helpers/unvalued-claims.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/**
 * A claim written while its price is being written, in two real concurrent transactions, held open
 * at the point where each would miss the other: the claim ends valued either way, whichever writes
 * the price (the price job's writePrices, an import's price records, or an import's token record
 * with a price), and a price of another chain, or an import without claims or prices, does not
 * wait. The embedded database has one connection, so two transactions cannot overlap there: these
 * run on PostgreSQL only (CI's TEST_DATABASE_URL).
 */
const T = new Date('2026-06-01T12:00:00.000Z');
const CHAIN = 8453;
const OTHER_CHAIN = 10;
const NATIVE_TOKEN_ID = '11111111-1111-4111-8111-111111111111';

describe.skipIf(!process.env.TEST_DATABASE_URL)('claims and prices written side by side', () => {
  let database: TestDatabase;
  let asset: { address: string; id: string };
  let campaign: { key: number; publicId: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    asset = await insertToken(database.db, { chainId: CHAIN, decimals: 6, priceUsd: null });
    campaign = await insertCampaign(database.db, { chainId: CHAIN, incentives: [erc20Incentive(asset.address, '1000000', '1000')] });
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await database.db.delete(claims);
    await database.db.delete(tokenPrices);
    // An import records a token's price only when it differs from the row's.
    await database.db.update(tokens).set({ priceUsd: null, priceSource: 'import' });
  });

  const prices = (chainId = CHAIN): PriceQuote[] => [
    { chainId, address: chainId === CHAIN ? asset.address : `0x${'ab'.repeat(20)}`, at: new Date(T.getTime() - 600_000), priceUsd: '2', source: 'defillama' },
    { chainId, address: NATIVE_TOKEN_ADDRESS, at: new Date(T.getTime() - 600_000), priceUsd: '4000', source: 'defillama' },
  ];
  /**
   * The same prices as an operator's import: token records with a price, recorded at the import's
   * time. `nativeOnly`: the native token's alone.
   */
  const importedPrices = (options: IngestOptions = {}, nativeOnly = false) => {
    const records: IngestRecord[] = [
      { kind: 'token', chainId: CHAIN, address: NATIVE_TOKEN_ADDRESS, id: NATIVE_TOKEN_ID, name: 'Ether', symbol: 'ETH', decimals: 18, imageUri: '', priceUsd: '4000' },
    ];
    if (!nativeOnly) {
      records.push({ kind: 'token', chainId: CHAIN, address: asset.address, id: asset.id, name: 'Token', symbol: 'TK', decimals: 6, imageUri: '', priceUsd: '2' });
    }
    return ingest(database, memorySource(records), { derived: 'live', ...options });
  };
  /** The same prices as an operator's price records, at the quotes' times. */
  const importedPriceRecords = (options: IngestOptions = {}) =>
    ingest(
      database,
      memorySource(prices().map(({ chainId, address, at, priceUsd }): IngestRecord => ({ kind: 'price', chainId, address, at: at.toISOString(), priceUsd }))),
      { derived: 'live', ...options },
    );
  const claimRecord = (at: Date): IngestRecord => unvaluedClaims(CHAIN, campaign.publicId, [{ amount: '1500000', at }])[0]!;
  /** A claim written as the indexer writes it: no values, the prices at `at` give them. */
  const claim = (at = T, options: IngestOptions = {}) => ingest(database, memorySource([claimRecord(at)]), { derived: 'live', ...options });
  const stored = () =>
    queryRows<{ usd: string; eth: string; pending: boolean }>(
      database.db,
      sql`SELECT usd_value::text AS usd, eth_value_wei::text AS eth, value_pending AS pending FROM claims ORDER BY id`,
    );
  /**
   * Each claim's USD value against amount / 10^decimals × its asset's newest price at or before its
   * time, in plain SQL: the claims whose stored value differs or is still pending.
   */
  const misvalued = () =>
    queryRows<{ id: string }>(
      database.db,
      sql`SELECT c.id::text AS id FROM claims AS c
            JOIN incentives AS i ON i.campaign_key = c.campaign_key AND i.position = c.incentive_position
            JOIN tokens AS t ON t.chain_id = c.chain_id AND t.address = i.asset_address
            LEFT JOIN LATERAL (SELECT p.price_usd FROM token_prices AS p
                                WHERE p.chain_id = c.chain_id AND p.address = t.address AND p.at <= c.claimed_at
                                ORDER BY p.at DESC LIMIT 1) AS p ON true
           WHERE c.value_pending OR p.price_usd IS NULL OR c.usd_value <> c.amount / 10 ^ t.decimals * p.price_usd`,
    );
  /** Backends of this database waiting for a lock (`advisory`: only those), seen from a third connection. */
  const waitingForLock = async (event = 'advisory') =>
    (
      await queryRows<{ waiting: number }>(
        database.db,
        sql`SELECT count(*)::int AS waiting FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND (wait_event = ${event} OR ${event} = 'any')`,
      )
    )[0]!.waiting;
  /** Whether `write` settles without any backend of this database waiting for a lock meanwhile. */
  const finishesWithoutWaiting = async (write: Promise<unknown>): Promise<boolean> => {
    let settled = false;
    const done = write.finally(() => (settled = true));
    while (!settled) {
      if ((await waitingForLock('any')) > 0) return false;
      await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 20))]);
    }
    await done;
    return true;
  };
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  };
  /**
   * Two writes side by side: `first` is started and held open where it calls `hold` (one of its
   * hooks), then `second` is started and `meanwhile` looks at it; then the first is let go. Both
   * are waited for whatever happens, so that a failure leaves no transaction behind.
   */
  const sideBySide = async <A, B>(
    first: (hold: () => Promise<void>) => Promise<A>,
    second: () => Promise<B>,
    meanwhile: (second: Promise<B>) => Promise<unknown>,
  ): Promise<[A, B]> => {
    const reached = gate();
    const release = gate();
    const firstWrite = first(async () => {
      reached.open();
      await release.opened;
    });
    await Promise.race([reached.opened, firstWrite]);
    const secondWrite = second();
    try {
      await meanwhile(secondWrite);
    } finally {
      release.open();
      await Promise.allSettled([firstWrite, secondWrite]);
    }
    return [await firstWrite, await secondWrite];
  };
  const waitsForTheLock = () => expect.poll(waitingForLock, { timeout: 5000 }).toBe(1);
  const valued = { usd: '3.000000', eth: '750000000000000', pending: false };

  it('a price written while a claim is being written waits for it, and values it', async () => {
    // The claim is written (waiting: no price yet) and not committed; the price write must wait.
    const [, priceWrite] = await sideBySide((hold) => claim(T, { beforeCommit: hold }), () => writePrices(database, prices()), waitsForTheLock);
    expect(priceWrite.valued).toBe(1);
    expect(await stored()).toEqual([valued]);
    expect(await misvalued()).toEqual([]);
  });

  it('a claim written while a price is being written waits for it, and is valued with it', async () => {
    await sideBySide((hold) => writePrices(database, prices(), { beforeCommit: hold }), () => claim(), waitsForTheLock);
    expect(await stored()).toEqual([valued]);
    expect(await misvalued()).toEqual([]);
  });

  // An imported price is recorded at the import's time: it values claims from then on.
  const soon = () => new Date(Date.now() + 10 * 60_000);

  it('an imported price written while a claim is being written waits for it, and values it', async () => {
    // The asset's price from a source, before: the import gives the native token's, which no campaign
    // pays. An import of the asset's price would wait for the claim anyway, to refresh the documents
    // of the campaign paying it (lock_campaign_refresh()), before it revalues.
    await writePrices(database, [{ chainId: CHAIN, address: asset.address, at: new Date(), priceUsd: '2', source: 'defillama' }]);
    await sideBySide((hold) => claim(soon(), { beforeCommit: hold }), () => importedPrices({}, true), waitsForTheLock);
    expect(await stored()).toEqual([valued]);
    expect(await misvalued()).toEqual([]);
  });

  it('a claim written while an import writes its price waits for it, and is valued with it', async () => {
    await sideBySide((hold) => importedPrices({ beforeCommit: hold }), () => claim(soon()), waitsForTheLock);
    expect(await stored()).toEqual([valued]);
    expect(await misvalued()).toEqual([]);
  });

  it('price records imported while a claim is being written wait for it, and value it', async () => {
    await sideBySide((hold) => claim(T, { beforeCommit: hold }), () => importedPriceRecords(), waitsForTheLock);
    expect(await stored()).toEqual([valued]);
    expect(await misvalued()).toEqual([]);
  });

  it('a claim written while an import writes price records waits for it, and is valued with them', async () => {
    await sideBySide((hold) => importedPriceRecords({ beforeCommit: hold }), () => claim(), waitsForTheLock);
    expect(await stored()).toEqual([valued]);
    expect(await misvalued()).toEqual([]);
  });

  it("a price written while the indexer confirms its basis waits, and neither deadlocks on the other's rows", async () => {
    // A claim waiting for its price, which the price write will value: that updates rows of its campaign.
    await claim();
    const [row] = await queryRows<{ identifier: string; core: string }>(
      database.db,
      sql`SELECT identifier::text AS identifier, core_address AS core FROM campaigns WHERE key = ${campaign.key}`,
    );
    const id = { chainId: CHAIN, core: row!.core };
    const basis = emptyBasis();
    basis.campaigns.set(row!.identifier, (await storedCampaigns(database, id, [row!.identifier])).get(row!.identifier)!);
    // As the indexer writes a block (the direct path): its campaigns locked before the merge (src/indexer/basis.ts).
    const confirmThenHold = (hold: () => Promise<void>) =>
      writeRecords(database, [claimRecord(T)], {
        beforeMerge: async (session) => {
          await confirmBasis(session, id, basis);
          await hold();
        },
      });
    const [, priceWrite] = await sideBySide(confirmThenHold, () => writePrices(database, prices()), () =>
      expect.poll(() => waitingForLock('any'), { timeout: 5000 }).toBe(1),
    );
    expect(priceWrite.valued).toBe(2);
    expect(await stored()).toEqual([valued, valued]);
  });

  it('a price of another chain does not wait for a claim being written', async () => {
    const [, other] = await sideBySide(
      (hold) => claim(T, { beforeCommit: hold }),
      () => writePrices(database, prices(OTHER_CHAIN)),
      async (write) => expect(await finishesWithoutWaiting(write)).toBe(true),
    );
    expect(other.written).toBe(2);
    expect(await stored()).toEqual([{ usd: '0.000000', eth: '0', pending: true }]);
  });

  it('an import without claims or prices of the chain does not wait for its price write', async () => {
    const { address, id, name, symbol, decimals, imageUri } = await insertToken(database.db, { chainId: CHAIN, decimals: 18, priceUsd: null });
    // A token of the chain without a price, as stored (one that changed would wait for the price
    // write's own token update: entry_shared_after_write()), and a deletion of a claim of the chain.
    const records: IngestRecord[] = [
      { kind: 'token', chainId: CHAIN, address, id, name, symbol, decimals, imageUri, isWhitelisted: true },
      { kind: 'claim', deleted: true, chainId: CHAIN, txHash: `0x${'ee'.repeat(32)}`, logIndex: 0 },
    ];
    const [, imported] = await sideBySide(
      (hold) => writePrices(database, prices(), { beforeCommit: hold }),
      () => ingest(database, memorySource(records), { derived: 'live' }),
      async (write) => expect(await finishesWithoutWaiting(write)).toBe(true),
    );
    expect(imported.token.unchanged).toBe(1);
  });
});
