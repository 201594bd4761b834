import { sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';
import type { BulkSession, DatabaseHandle } from '../db/handle.js';
import type { PriceQuote } from '../prices/source.js';
import { lockChainsForPrices } from './price-locks.js';

/**
 * The write path of prices: quotes into the price history (token_prices) and each token's current
 * price, in one transaction; then the claims that waited for them valued (revalue_claims()), a
 * chunk at a time, through the claims' triggers, so totals, stored documents and the claim feed
 * follow each chunk.
 *
 * A quote is refused, never stored, when its price is not a positive finite decimal, when its time
 * is not a time, or when it differs from the token's nearest known price (within a day of it, from
 * any source) by more than a factor of MAX_PRICE_JUMP either way: a real move that large within a
 * day is rarer than a source's error, and a refused real price is only a claim valued later (the
 * next quote compares with the same neighbours; an operator can import the price).
 */
export const MAX_PRICE_JUMP = 5;
const NEIGHBOUR_WINDOW = '1 day';
const ADDRESS = /^0x[0-9a-f]{40}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,19})(\.[0-9]{1,18})?$/;

export interface RefusedQuote {
  quote: PriceQuote;
  reason: string;
}

export interface PriceWrite {
  /** Quotes stored (a quote already stored for its token, time and source counts once). */
  written: number;
  refused: RefusedQuote[];
  /** Claims that got a value. */
  valued: number;
}

function malformed(quote: PriceQuote): string | undefined {
  if (!Number.isInteger(quote.chainId) || quote.chainId <= 0 || quote.chainId > 2 ** 31 - 1) return `chain ${quote.chainId} is not a chain id`;
  if (typeof quote.address !== 'string' || !ADDRESS.test(quote.address.toLowerCase())) return `${JSON.stringify(quote.address)} is not an address`;
  if (!(quote.at instanceof Date) || Number.isNaN(quote.at.getTime())) return 'its time is not a time';
  if (!DECIMAL.test(quote.priceUsd) || !(Number(quote.priceUsd) > 0)) return `price ${JSON.stringify(quote.priceUsd)} is not a positive decimal`;
  return undefined;
}

export interface WritePricesOptions {
  /** Runs last in the transaction, before it commits (tests hold a write open with it). */
  beforeCommit?: (session: BulkSession) => Promise<void>;
  /** Claims a revaluation chunk takes (tests cross chunk ends with few claims). */
  revalueChunk?: number;
}

export async function writePrices(database: DatabaseHandle, quotes: readonly PriceQuote[], options: WritePricesOptions = {}): Promise<PriceWrite> {
  const refused: RefusedQuote[] = [];
  const wellFormed = quotes.filter((quote) => {
    const reason = malformed(quote);
    if (reason) refused.push({ quote, reason });
    return reason === undefined;
  });
  if (wellFormed.length === 0) return { written: 0, refused, valued: 0 };

  const result = await database.bulkTransaction(async (session) => {
    await lockChainsForPrices(session, wellFormed.map((quote) => quote.chainId));
    const rows = wellFormed.map((quote) => ({
      chain_id: quote.chainId,
      address: quote.address.toLowerCase(),
      at: quote.at.toISOString(),
      source: quote.source,
      price_usd: quote.priceUsd,
    }));
    // The nearest stored price of each quote's token (by time, within the window), to refuse jumps.
    const checked = await session.query<{ index: number; nearest: string | null }>(
      sql`SELECT q.index::int AS index, n.price_usd::text AS nearest
            FROM jsonb_to_recordset(${JSON.stringify(rows.map((row, index) => ({ ...row, index })))}::jsonb)
                 AS q(index int, chain_id int, address text, at timestamptz, source text, price_usd numeric)
            LEFT JOIN LATERAL (
              SELECT p.price_usd FROM token_prices AS p
               WHERE p.chain_id = q.chain_id AND p.address = q.address
                 AND p.at BETWEEN q.at - ${NEIGHBOUR_WINDOW}::interval AND q.at + ${NEIGHBOUR_WINDOW}::interval
               ORDER BY abs(extract(epoch FROM p.at - q.at)), p.at DESC
               LIMIT 1) AS n ON true
           ORDER BY q.index`,
    );
    const accepted = rows.filter((row, index) => {
      const nearest = checked[index]?.nearest;
      if (nearest == null) return true;
      const ratio = Number(row.price_usd) / Number(nearest);
      if (ratio <= MAX_PRICE_JUMP && ratio >= 1 / MAX_PRICE_JUMP) return true;
      refused.push({ quote: wellFormed[index]!, reason: `price ${row.price_usd} is more than ${MAX_PRICE_JUMP}x away from ${nearest}, the nearest known` });
      return false;
    });
    if (accepted.length === 0) return { written: 0, refused, accepted };

    const [{ written } = { written: 0 }] = await session.query<{ written: number }>(
      sql`WITH written AS (
            INSERT INTO token_prices (chain_id, address, at, source, price_usd)
            SELECT q.chain_id, q.address, q.at, q.source, q.price_usd
              FROM jsonb_to_recordset(${JSON.stringify(accepted)}::jsonb)
                   AS q(chain_id int, address text, at timestamptz, source text, price_usd numeric)
            ON CONFLICT (chain_id, address, at, source) DO NOTHING
            RETURNING 1)
          SELECT count(*)::int AS written FROM written`,
    );
    await followNewestPrices(session, accepted);
    await options.beforeCommit?.(session);
    return { written, refused, accepted };
  });
  // Every accepted quote's span, stored before or not: a revaluation cut short (a crash, a timeout)
  // leaves claims waiting that the same price, written again, values.
  let valued = 0;
  for (const span of spans(result.accepted)) valued += await revalue(database, span, options.revalueChunk ?? REVALUE_CHUNK);
  return { written: result.written, refused: result.refused, valued };
}

interface Span {
  chain_id: number;
  addresses: string[];
  from: string;
  to: string;
}

/** Per chain: the tokens quoted and the earliest and latest time of their quotes. */
function spans(quotes: readonly { chain_id: number; address: string; at: string }[]): Span[] {
  const byChain = new Map<number, { addresses: Set<string>; from: string; to: string }>();
  for (const quote of quotes) {
    const span = byChain.get(quote.chain_id);
    if (!span) byChain.set(quote.chain_id, { addresses: new Set([quote.address]), from: quote.at, to: quote.at });
    else {
      span.addresses.add(quote.address);
      // ISO strings of one format order as their times.
      if (quote.at < span.from) span.from = quote.at;
      if (quote.at > span.to) span.to = quote.at;
    }
  }
  return [...byChain].map(([chain_id, span]) => ({ chain_id, addresses: [...span.addresses], from: span.from, to: span.to }));
}

/**
 * Claims a revaluation chunk takes: a transaction short enough that claim writers of the same
 * campaigns wait little for it and readers share the machine with a long revaluation, long enough
 * that the campaigns' totals and documents are not rebuilt once per handful of claims.
 */
const REVALUE_CHUNK = 10_000;

/**
 * The waiting claims the stored prices can value, valued a chunk at a time, each chunk its own
 * transaction, after the prices committed: a claim written since then was valued as it was written
 * (the chain's lock ordered it after the prices), one written before is waiting and committed, so
 * a chunk finds it.
 */
async function revalue(database: DatabaseHandle, chain: Span, chunkSize: number): Promise<number> {
  let valued = 0;
  let after: { key: number; id: string } | null = null;
  for (;;) {
    const chunkStarted = performance.now();
    const rows: { valued: string; looked: number; last_key: number | null; last_id: string | null }[] = await queryRows(
      database.db,
      sql`SELECT valued::text, looked, last_key, last_id::text
            FROM revalue_claims(${chain.chain_id}, ${`{${chain.addresses.join(',')}}`}::text[], ${chain.from}::timestamptz, ${chain.to}::timestamptz,
                                ${after?.key ?? null}::integer, ${after?.id ?? null}::bigint, ${chunkSize})`,
    );
    const chunk = rows[0];
    valued += Number(chunk?.valued ?? 0);
    if (!chunk || chunk.looked < chunkSize || chunk.last_key === null || chunk.last_id === null) return valued;
    after = { key: chunk.last_key, id: chunk.last_id };
    // A pause as long as the chunk took: a long revaluation takes at most half a core, and the API's
    // reads of the same database keep most of their throughput while it runs.
    await new Promise((resolve) => setTimeout(resolve, performance.now() - chunkStarted));
  }
}

/**
 * A token's current price (`tokens.price_usd`: budgets, `actionTokenMetadata`) is the newest price in
 * its history, once a source quoted it: written here with its source, and with the change over the
 * 24 hours before it when the history holds a price from then (within the same two hours a claim's
 * price may be old). An imported price sets the row itself (the import's merge); a source's older
 * quote leaves it. The update goes through the tokens' trigger, so the documents of the campaigns
 * paying these tokens follow.
 */
async function followNewestPrices(session: BulkSession, written: readonly { chain_id: number; address: string }[]): Promise<void> {
  await session.query(
    sql`WITH touched AS (
          SELECT DISTINCT q.chain_id, q.address
            FROM jsonb_to_recordset(${JSON.stringify(written.map(({ chain_id, address }) => ({ chain_id, address })))}::jsonb) AS q(chain_id int, address text)),
        newest AS (
          SELECT t.chain_id, t.address, n.price_usd, n.source, d.price_usd AS day_before
            FROM touched AS t
           CROSS JOIN LATERAL (
             SELECT p.price_usd, p.source, p.at FROM token_prices AS p
              WHERE p.chain_id = t.chain_id AND p.address = t.address
              ORDER BY p.at DESC, p.source = 'import' DESC LIMIT 1) AS n
            LEFT JOIN LATERAL (
             SELECT p.price_usd FROM token_prices AS p
              WHERE p.chain_id = t.chain_id AND p.address = t.address
                AND p.at <= n.at - interval '24 hours' AND p.at >= n.at - interval '26 hours'
              ORDER BY p.at DESC, p.source = 'import' DESC LIMIT 1) AS d ON true
           WHERE n.source <> 'import')
        UPDATE tokens AS t
           SET price_usd = n.price_usd,
               price_source = n.source,
               price_change_24h_pct = CASE WHEN n.day_before IS NULL THEN t.price_change_24h_pct
                                           ELSE round(least(greatest((n.price_usd / n.day_before - 1) * 100, -100), 99999999), 4) END
          FROM newest AS n
         WHERE t.chain_id = n.chain_id AND t.address = n.address
           AND (t.price_usd, t.price_source) IS DISTINCT FROM (n.price_usd, n.source)`,
  );
}
