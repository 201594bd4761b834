import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { writeRecords } from '../../src/ingest/direct.js';
import { exportNdjson } from '../../src/ingest/export.js';
import { importNdjson } from '../../src/ingest/ndjson-source.js';
import { MAX_PRICE_JUMP, writePrices } from '../../src/ingest/prices.js';
import { IngestError } from '../../src/ingest/write.js';
import { NATIVE_TOKEN_ADDRESS, type PriceQuote } from '../../src/prices/source.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address } from '../helpers/factories.js';
import { baseRecords, CAMPAIGN_ID, CHAIN, claimRecord, hash, lines } from '../helpers/records.js';

/**
 * An import's price records: a token imported with its claims, its price imported after them,
 * then its past prices imported in a later file. The claims that waited are valued as the price
 * job's writePrices() of the same quotes values them, with the same events and claim feed, and a
 * file of prices imported again changes nothing.
 */
const DAY = 86_400_000;
/** Three days before the tests run: far from the token record's price, recorded at the import's time. */
const T = new Date(Math.floor((Date.now() - 3 * DAY) / 60_000) * 60_000);
const minutes = (n: number) => new Date(T.getTime() + n * 60_000).toISOString();
const ASSET = address(0x70001);

/** The campaign's claims, without values: they wait for prices of their times. */
const claims = [
  claimRecord(0, { amount: '1000000', claimedAt: minutes(10) }),
  claimRecord(1, { amount: '2500000', claimedAt: minutes(30), claimant: address(0x10002) }),
  claimRecord(2, { amount: '4000000', claimedAt: minutes(300) }),
].map(({ usdValue: _usd, ethValueWei: _eth, ...claim }) => claim);
/** The base records (the asset priced at $1 now), with those claims. */
const firstFile = () => [...baseRecords().filter((record) => record.kind !== 'claim'), ...claims];

/** The asset's and the native token's prices before the first two claims: the third is too far after them. */
const QUOTES = [
  { address: ASSET, at: minutes(-5), priceUsd: '1.5' },
  { address: NATIVE_TOKEN_ADDRESS, at: minutes(0), priceUsd: '3000' },
];
const priceRecords = (quotes = QUOTES) => quotes.map((quote) => ({ kind: 'price', chainId: CHAIN, ...quote }));
const asQuotes = (source: string): PriceQuote[] => QUOTES.map((quote) => ({ chainId: CHAIN, ...quote, at: new Date(quote.at), source }));

const importLines = (database: TestDatabase, records: unknown[], derived: 'live' | 'deferred' = 'live') =>
  importNdjson(database, Readable.from([lines(records)]), { derived });

async function problemsOf(work: Promise<unknown>): Promise<{ line?: number; message: string }[]> {
  try {
    await work;
  } catch (error) {
    if (error instanceof IngestError) return error.problems;
    throw error;
  }
  throw new Error('the input was accepted');
}

/** What a price write changed, as readers see it: the claims, the API's answers, the events, the claim feed. */
async function observe(database: TestDatabase, app: App, since: { event: number; xid: string }) {
  const stored = await queryRows<Record<string, unknown>>(
    database.db,
    sql`SELECT tx_hash, log_index, usd_value::text, eth_value_wei::text, value_pending FROM claims ORDER BY id`,
  );
  const events = await queryRows<Record<string, unknown>>(
    database.db,
    sql`SELECT type, chain_id, campaign_id, claimant, data FROM events WHERE id > ${since.event} ORDER BY id`,
  );
  const feed = await queryRows<Record<string, unknown>>(
    database.db,
    sql`SELECT public_id, claimed_at::text, usd_value::text, sign FROM claim_changes WHERE xid > ${since.xid}::xid8
         ORDER BY public_id, claimed_at, sign`,
  );
  const claimants = await queryRows<{ claimant: string }>(
    database.db,
    // The claimants whose kept profiles a reader finds changed (claimant_changed_since() reads both).
    sql`SELECT claimant FROM claim_changes WHERE xid > ${since.xid}::xid8 AND claimant IS NOT NULL
        UNION SELECT claimant FROM claimant_changes WHERE xid > ${since.xid}::xid8 ORDER BY claimant`,
  );
  const detail = (await app.inject(`/campaigns/${CAMPAIGN_ID}`)).json<unknown>();
  const activity = (await app.inject(`/campaigns/${CAMPAIGN_ID}/activity?pageSize=100`)).json<unknown>();
  return { stored, events, feed, claimants, detail, activity };
}

async function mark(database: TestDatabase): Promise<{ event: number; xid: string }> {
  const [row] = await queryRows<{ event: number; xid: string }>(
    database.db,
    sql`SELECT (SELECT coalesce(max(id), 0)::int FROM events) AS event, pg_current_xact_id()::text AS xid`,
  );
  return row!;
}

describe('price records in an import', () => {
  let imported: TestDatabase;
  let priced: TestDatabase;
  let importedApp: App;
  let pricedApp: App;

  beforeAll(async () => {
    [imported, priced] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    for (const database of [imported, priced]) await importLines(database, firstFile());
    importedApp = await buildTestApp(imported);
    pricedApp = await buildTestApp(priced);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([importedApp?.close(), pricedApp?.close()]);
    await Promise.all([imported?.close(), priced?.close()]);
  });

  it("values the claims that waited as the price job's writePrices() of the same quotes does, with the same events and claim feed", async () => {
    // The token's price, imported after its claims, is from the import's time: every claim waits.
    const waiting = await queryRows<{ pending: boolean }>(imported.db, sql`SELECT value_pending AS pending FROM claims`);
    expect(waiting.map((row) => row.pending)).toEqual([true, true, true]);

    const importedSince = await mark(imported);
    const summary = await importLines(imported, priceRecords());
    expect(summary.price).toEqual({ inserted: 2, updated: 0, deleted: 0, unchanged: 0 });
    const pricedSince = await mark(priced);
    const write = await writePrices(priced, asQuotes('defillama'));
    expect(write).toMatchObject({ written: 2, refused: [], valued: 2 });

    const byImport = await observe(imported, importedApp, importedSince);
    const byPriceJob = await observe(priced, pricedApp, pricedSince);
    // 1 and 2.5 tokens × $1.50; in ETH at $3000; the claim five hours after the prices still waits.
    expect(byImport.stored).toEqual([
      { tx_hash: hash('11'), log_index: 0, usd_value: '1.500000', eth_value_wei: '500000000000000', value_pending: false },
      { tx_hash: hash('11'), log_index: 1, usd_value: '3.750000', eth_value_wei: '1250000000000000', value_pending: false },
      { tx_hash: hash('11'), log_index: 2, usd_value: '0.000000', eth_value_wei: '0', value_pending: true },
    ]);
    expect(byImport.events.map((event) => event.type).sort()).toEqual(['campaign.changed', 'claim.written', 'claim.written']);
    expect(byImport.feed.length).toBeGreaterThan(0);
    expect(byImport.claimants).toEqual([{ claimant: address(0x10001) }, { claimant: address(0x10002) }]);
    expect(byImport).toEqual(byPriceJob);

    const totals = await queryRows<{ usd: string }>(imported.db, sql`SELECT total_usd_claimed::text AS usd FROM incentives ORDER BY position`);
    expect(totals[0]!.usd).toBe('5.250000');
    // The token's current price stays the one its record gave.
    const [token] = await queryRows<{ price: string; source: string }>(
      imported.db,
      sql`SELECT price_usd::text AS price, price_source AS source FROM tokens WHERE address = ${ASSET}`,
    );
    expect({ price: Number(token!.price), source: token!.source }).toEqual({ price: 1, source: 'import' });
  });

  it('changes nothing when the same file is imported again: no row, no event, no claim feed entry', async () => {
    const count = async () => (await queryRows<{ n: number }>(imported.db, sql`SELECT count(*)::int AS n FROM token_prices`))[0]!.n;
    const rows = await count();
    const since = await mark(imported);
    for (const derived of ['live', 'deferred'] as const) {
      const summary = await importLines(imported, priceRecords(), derived);
      expect(summary.price).toEqual({ inserted: 0, updated: 0, deleted: 0, unchanged: 2 });
    }
    expect(await count()).toBe(rows);
    const [after] = await queryRows<{ events: number; feed: number }>(
      imported.db,
      sql`SELECT (SELECT count(*)::int FROM events WHERE id > ${since.event}) AS events,
                 (SELECT count(*)::int FROM claim_changes WHERE xid > ${since.xid}::xid8) AS feed`,
    );
    expect(after).toEqual({ events: 0, feed: 0 });
  });

  it('refuses a bad price record naming its line and field, and writes nothing', async () => {
    const good = priceRecords()[0]!;
    const input = [
      good,
      { ...good, priceUsd: '-1' },
      { ...good, priceUsd: '1e3' },
      { ...good, priceUsd: '0.000' },
      { ...good, priceUsd: 1.5 },
      { ...good, at: '2026-02-31T12:00:00.000Z' },
      { ...good, at: 'yesterday' },
      { ...good, chainId: 0 },
      { ...good, source: 'defillama' },
    ];
    const rule = 'must be a decimal string greater than 0, with at most 20 digits before the point and 18 after';
    expect(await problemsOf(importLines(imported, input))).toEqual([
      { line: 2, message: `price.priceUsd ${rule}` },
      { line: 3, message: `price.priceUsd ${rule}` },
      { line: 4, message: `price.priceUsd ${rule}` },
      { line: 5, message: `price.priceUsd ${rule}` },
      { line: 6, message: 'price.at must be a time that exists' },
      { line: 7, message: 'price.at must be an ISO 8601 UTC date-time such as 2026-01-31T12:00:00.000Z' },
      { line: 8, message: 'price.chainId must be an integer from 1 to 2147483647' },
      { line: 9, message: "price has an unknown field 'source'" },
    ]);
  });

  it(`refuses, naming the line, a price more than ${MAX_PRICE_JUMP}x away from its nearest known one, as the price job does`, async () => {
    const rows = await queryRows<{ n: number }>(imported.db, sql`SELECT count(*)::int AS n FROM token_prices`);
    const jumps = [
      { address: ASSET, at: minutes(-60), priceUsd: '7.6' },
      { address: ASSET, at: minutes(-120), priceUsd: '1.6' },
      { address: NATIVE_TOKEN_ADDRESS, at: minutes(600), priceUsd: '500' },
    ];
    expect(await problemsOf(importLines(imported, priceRecords(jumps)))).toEqual([
      { line: 1, message: "price.priceUsd 7.6 is more than 5x away from 1.5, the token's nearest known price within a day" },
      { line: 3, message: "price.priceUsd 500 is more than 5x away from 3000, the token's nearest known price within a day" },
    ]);
    expect(await queryRows(imported.db, sql`SELECT count(*)::int AS n FROM token_prices`)).toEqual(rows);
    // The price job refuses the same quotes, and stores the one between.
    const write = await writePrices(
      priced,
      jumps.map((quote) => ({ chainId: CHAIN, ...quote, at: new Date(quote.at), source: 'defillama' })),
    );
    expect(write.refused.map((refused) => refused.quote.priceUsd)).toEqual(['7.6', '500']);
  });

  it("accepts a price of a token the database does not know, as the price job stores any token's quote", async () => {
    const unknown = address(0x7777);
    const summary = await importLines(imported, priceRecords([{ address: unknown.toUpperCase().replace('0X', '0x'), at: minutes(0), priceUsd: '2' }]));
    expect(summary.price.inserted).toBe(1);
    const stored = await queryRows(imported.db, sql`SELECT address, source FROM token_prices WHERE address = ${unknown}`);
    expect(stored).toEqual([{ address: unknown, source: 'import' }]);
    expect(await queryRows(imported.db, sql`SELECT 1 FROM tokens WHERE address = ${unknown}`)).toEqual([]);
  });

  it('replaces a stored price given again with another, and deletes an imported price, never a source’s; claims keep their values', async () => {
    const at = minutes(-5);
    const prices = () =>
      queryRows<{ source: string; price: string }>(
        imported.db,
        sql`SELECT source, price_usd::text AS price FROM token_prices WHERE address = ${ASSET} AND at = ${at}::timestamptz ORDER BY source`,
      );
    const values = () => queryRows(imported.db, sql`SELECT usd_value::text FROM claims ORDER BY id`);
    const before = await values();

    // Ten times the stored price, its time written another way: a correction, not compared with the price it replaces.
    const corrected = await importLines(imported, [{ kind: 'price', chainId: CHAIN, address: ASSET, at: at.replace('.000Z', 'Z'), priceUsd: '15' }]);
    expect(corrected.price).toEqual({ inserted: 0, updated: 1, deleted: 0, unchanged: 0 });
    // A source's quote at the same time: the deletion of the imported price leaves it.
    await writePrices(imported, [{ chainId: CHAIN, address: ASSET, at: new Date(at), priceUsd: '14', source: 'defillama' }]);
    expect((await prices()).map((row) => [row.source, Number(row.price)])).toEqual([
      ['defillama', 14],
      ['import', 15],
    ]);

    const deletion = { kind: 'price', deleted: true, chainId: CHAIN, address: ASSET, at };
    expect((await importLines(imported, [deletion])).price).toEqual({ inserted: 0, updated: 0, deleted: 1, unchanged: 0 });
    expect((await importLines(imported, [deletion])).price).toEqual({ inserted: 0, updated: 0, deleted: 0, unchanged: 1 });
    expect((await prices()).map((row) => row.source)).toEqual(['defillama']);
    expect(await values()).toEqual(before);
    // As it was, for the tests after this one.
    await imported.db.execute(sql`DELETE FROM token_prices WHERE address = ${ASSET} AND at = ${at}::timestamptz`);
    await importLines(imported, priceRecords());
  });

  it("values the waiting claims in an import with derived state deferred too: totals, the list's documents and one claim feed reload", async () => {
    const database = await createTestDatabase();
    try {
      await importLines(database, firstFile());
      const since = await mark(database);
      await importLines(database, priceRecords(), 'deferred');
      const [state] = await queryRows<{ usd: string; waiting: number; reloads: number }>(
        database.db,
        sql`SELECT (SELECT total_usd_claimed::text FROM incentives WHERE position = 0) AS usd,
                   (SELECT count(*)::int FROM claims WHERE value_pending) AS waiting,
                   (SELECT count(*)::int FROM claim_changes WHERE xid > ${since.xid}::xid8 AND campaign_key IS NULL) AS reloads`,
      );
      expect(state).toEqual({ usd: '5.250000', waiting: 1, reloads: 1 });
      const app = await buildTestApp(database);
      try {
        const list = (await app.inject('/campaigns?tokenWhitelist=false')).json<{ campaigns: { id: string; usdSpend?: number }[] }>();
        expect(list.campaigns.map((campaign) => [campaign.id, campaign.usdSpend])).toEqual([[CAMPAIGN_ID, 5.25]]);
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
    }
  });

  it('writes the same through the direct path (the indexer’s), its claims valued by the prices given with them', async () => {
    const database = await createTestDatabase();
    try {
      await importLines(database, firstFile().filter((record) => record.kind !== 'claim'));
      const records = [...priceRecords(), ...claims] as Parameters<typeof writeRecords>[1];
      const summary = await writeRecords(database, records);
      expect(summary.price.inserted).toBe(2);
      const stored = await queryRows(database.db, sql`SELECT usd_value::text, value_pending FROM claims ORDER BY id`);
      expect(stored).toEqual([
        { usd_value: '1.500000', value_pending: false },
        { usd_value: '3.750000', value_pending: false },
        { usd_value: '0.000000', value_pending: true },
      ]);
    } finally {
      await database.close();
    }
  });

  it('exports the imported price history, and a database imported from the export exports the same bytes', async () => {
    const exportText = async (database: TestDatabase) => {
      let text = '';
      await exportNdjson(database, async (chunk) => {
        text += chunk;
      });
      return text;
    };
    const exported = await exportText(imported);
    const exportedPrices = exported
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record.kind === 'price');
    // The token record's price, recorded at its import's time, goes out as the token's priceUsd alone.
    expect(exportedPrices.map(({ address: token, at, priceUsd }) => [token, at, Number(priceUsd)])).toEqual([
      [NATIVE_TOKEN_ADDRESS, minutes(0), 3000],
      [address(0x7777), minutes(0), 2],
      [ASSET, minutes(-5), 1.5],
    ]);
    const copy = await createTestDatabase();
    try {
      await importNdjson(copy, Readable.from([exported]));
      expect(await exportText(copy)).toBe(exported);
      const values = (database: TestDatabase) => queryRows(database.db, sql`SELECT usd_value::text, eth_value_wei::text, value_pending FROM claims ORDER BY id`);
      expect(await values(copy)).toEqual(await values(imported));
    } finally {
      await copy.close();
    }
  });
});
