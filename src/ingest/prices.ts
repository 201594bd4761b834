import { type SQL, sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';
import type { BulkSession, DatabaseHandle } from '../db/handle.js';
import type { PriceQuote } from '../prices/source.js';
import { lockChainsForPrices } from './price-locks.js';
import { MAX_PRICE_JUMP, quoteProblem } from './price-quote.js';

export { MAX_PRICE_JUMP } from './price-quote.js';

/**
 * The write path of prices: quotes into the price history (token_prices) and each token's current
 * price, in one transaction; then the claims that waited for them valued (revalue_claims()), through
 * the claims' triggers, so totals, stored documents and the claim feed follow. The price job writes
 * its sources' quotes with writePrices(); an import's price records take the same steps inside the
 * import's transaction (storePrices(), revalueClaims(); src/ingest/merge-prices.ts).
 *
 * A quote is refused, never stored, when it is not a price (quoteProblem(), price-quote.ts), or when
 * it differs from the token's nearest known price (within a day of it, from any source) by more than
 * a factor of MAX_PRICE_JUMP either way.
 */
const NEIGHBOUR_WINDOW = '1 day';
/** Times as text that keeps PostgreSQL's microseconds, whatever the session's time zone. */
const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

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

export interface WritePricesOptions {
  /** Runs last in the transaction, before it commits (tests hold a write open with it). */
  beforeCommit?: (session: BulkSession) => Promise<void>;
  /** Claims a revaluation chunk takes (tests cross chunk ends with few claims). */
  revalueChunk?: number;
}

export async function writePrices(database: DatabaseHandle, quotes: readonly PriceQuote[], options: WritePricesOptions = {}): Promise<PriceWrite> {
  const refused: RefusedQuote[] = [];
  const wellFormed = quotes.filter((quote) => {
    const problem = quoteProblem(quote);
    if (problem) refused.push({ quote, reason: `${problem.field} ${JSON.stringify(String(quote[problem.field]))} ${problem.rule}` });
    return problem === undefined;
  });
  if (wellFormed.length === 0) return { written: 0, refused, valued: 0 };

  const rows = wellFormed.map((quote, ord) => ({
    ord,
    chain_id: quote.chainId,
    address: quote.address.toLowerCase(),
    at: quote.at.toISOString(),
    source: quote.source,
    price_usd: quote.priceUsd,
  }));
  const stored = await database.bulkTransaction(async (session) => {
    await lockChainsForPrices(session, wellFormed.map((quote) => quote.chainId));
    const result = await storePrices(
      session,
      sql`(SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                 AS q(ord bigint, chain_id integer, address text, at timestamptz, source text, price_usd numeric))`,
      { replace: false },
    );
    await options.beforeCommit?.(session);
    return result;
  });
  for (const jump of stored.refused) refused.push({ quote: wellFormed[jump.ord]!, reason: `price ${jumpReason(jump)}` });
  // Every accepted quote's span, stored before or not: a revaluation cut short (a crash, a timeout)
  // leaves claims waiting that the same price, written again, values.
  let valued = 0;
  for (const span of stored.spans) {
    valued += await revalueClaims((query) => queryRows(database.db, query), span, options.revalueChunk ?? REVALUE_CHUNK);
  }
  return { written: stored.inserted, refused, valued };
}

/** A quote refused for how far it is from its token's nearest known price. */
export interface JumpedQuote {
  ord: number;
  priceUsd: string;
  nearest: string;
}

/** `2 is more than …`: what a caller says after the price's name. */
export const jumpReason = (jump: JumpedQuote) =>
  `${jump.priceUsd} is more than ${MAX_PRICE_JUMP}x away from ${jump.nearest}, the token's nearest known price within a day`;

export interface StoredPrices {
  inserted: number;
  /** Stored prices replaced by a different one (`replace`). */
  updated: number;
  /** By `ord`. */
  refused: JumpedQuote[];
  /** What the accepted quotes can value: each goes to revalueClaims() where their rows are visible. */
  spans: Span[];
}

export interface StorePricesOptions {
  /**
   * A price stored for the same token, time and source is replaced, and is no neighbour its
   * replacement is compared with (an import's record says what the price was, and may correct it);
   * otherwise it stays (a source's quote asked for again is the same quote).
   */
  replace: boolean;
  /** When a quote is refused, nothing is stored, and at most this many refused quotes are returned. */
  allOrNothing?: number;
}

/**
 * Quotes into the price history, in the caller's transaction, which holds the price locks of their
 * chains (lockChainsForPrices(), or the import's): `quotes` is a FROM item of (ord bigint, chain_id
 * integer, address text, at timestamptz, source text, price_usd numeric), every row well-formed
 * (quoteProblem()) and its address lowercase. Quotes too far from their nearest known price are
 * refused; the rest are stored, and the tokens' current prices follow them (followNewestPrices()).
 * Quotes are compared with what is stored, not with each other.
 */
export async function storePrices(session: BulkSession, quotes: SQL, options: StorePricesOptions): Promise<StoredPrices> {
  const sameQuote = options.replace ? sql`AND (p.at, p.source) IS DISTINCT FROM (q.at, q.source)` : sql``;
  const jumped = await session.query<{ ord: string; price: string; nearest: string }>(
    sql`SELECT q.ord::text AS ord, q.price_usd::text AS price, trim_scale(n.price_usd)::text AS nearest
          FROM ${quotes} AS q
          CROSS JOIN LATERAL (
            SELECT p.price_usd FROM token_prices AS p
             WHERE p.chain_id = q.chain_id AND p.address = q.address
               AND p.at BETWEEN q.at - ${NEIGHBOUR_WINDOW}::interval AND q.at + ${NEIGHBOUR_WINDOW}::interval ${sameQuote}
             ORDER BY abs(extract(epoch FROM p.at - q.at)), p.at DESC
             LIMIT 1) AS n
         WHERE q.price_usd > n.price_usd * ${MAX_PRICE_JUMP} OR q.price_usd * ${MAX_PRICE_JUMP} < n.price_usd
         ORDER BY q.ord${options.allOrNothing === undefined ? sql`` : sql` LIMIT ${options.allOrNothing}`}`,
  );
  const refused = jumped.map((row) => ({ ord: Number(row.ord), priceUsd: row.price, nearest: row.nearest }));
  if (refused.length > 0 && options.allOrNothing !== undefined) return { inserted: 0, updated: 0, refused, spans: [] };

  const accepted = sql`(SELECT * FROM ${quotes} AS q WHERE q.ord <> ALL (${`{${refused.map((row) => row.ord).join(',')}}`}::bigint[]))`;
  const onConflict = options.replace
    ? sql`DO UPDATE SET price_usd = excluded.price_usd WHERE t.price_usd IS DISTINCT FROM excluded.price_usd`
    : sql`DO NOTHING`;
  const [written = { inserted: 0, updated: 0 }] = await session.query<{ inserted: number; updated: number }>(
    sql`WITH written AS (
          INSERT INTO token_prices AS t (chain_id, address, at, source, price_usd)
          SELECT q.chain_id, q.address, q.at, q.source, q.price_usd FROM ${accepted} AS q ORDER BY q.ord
          ON CONFLICT (chain_id, address, at, source) ${onConflict}
          RETURNING (xmax = 0) AS inserted)
        SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated FROM written`,
  );
  await followNewestPrices(session, accepted);
  const spans = await session.query<{ chain_id: number; addresses: string; first: string; last: string }>(
    sql`SELECT q.chain_id, string_agg(DISTINCT q.address, ',') AS addresses,
               to_char(min(q.at) AT TIME ZONE 'UTC', ${sql.raw(ISO_UTC)}) AS first, to_char(max(q.at) AT TIME ZONE 'UTC', ${sql.raw(ISO_UTC)}) AS last
          FROM ${accepted} AS q GROUP BY q.chain_id ORDER BY q.chain_id`,
  );
  return {
    ...written,
    refused,
    spans: spans.map((row) => ({ chain_id: row.chain_id, addresses: row.addresses.split(','), from: row.first, to: row.last })),
  };
}

/** A chain's quoted tokens, and the earliest and latest time of their quotes. */
export interface Span {
  chain_id: number;
  addresses: string[];
  from: string;
  to: string;
}

/**
 * Claims a revaluation chunk takes: a transaction short enough that claim writers of the same
 * campaigns wait little for it and readers share the machine with a long revaluation, long enough
 * that the campaigns' totals and documents are not rebuilt once per handful of claims.
 */
const REVALUE_CHUNK = 10_000;

/**
 * The waiting claims the stored prices of a span can value, valued through `run`. With a chunk size
 * (writePrices(), after the prices committed), a chunk at a time, each chunk its own transaction: a
 * claim written since the prices committed was valued as it was written (the chain's lock ordered
 * it after them), one written before is waiting and committed, so a chunk finds it. Without one (an
 * import, in its own transaction), all of them in one statement.
 */
export async function revalueClaims(
  run: <Row>(query: SQL) => Promise<Row[]>,
  span: Span,
  chunkSize: number | null,
): Promise<number> {
  let valued = 0;
  let after: { key: number; id: string } | null = null;
  for (;;) {
    const chunkStarted = performance.now();
    const rows: { valued: string; looked: number; last_key: number | null; last_id: string | null }[] = await run(
      sql`SELECT valued::text, looked, last_key, last_id::text
            FROM revalue_claims(${span.chain_id}, ${`{${span.addresses.join(',')}}`}::text[], ${span.from}::timestamptz, ${span.to}::timestamptz,
                                ${after?.key ?? null}::integer, ${after?.id ?? null}::bigint, ${chunkSize}::integer)`,
    );
    const chunk = rows[0];
    valued += Number(chunk?.valued ?? 0);
    if (chunkSize === null || !chunk || chunk.looked < chunkSize || chunk.last_key === null || chunk.last_id === null) return valued;
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
 * price may be old). An imported price, the newest or not, leaves it: a token record's price set the
 * row itself (the import's merge), and a price record is a past price, not the operator's word on
 * the current one. A source's older quote leaves it too. The update goes through the tokens'
 * trigger, so the documents of the campaigns paying these tokens follow.
 */
async function followNewestPrices(session: BulkSession, quotes: SQL): Promise<void> {
  await session.query(
    sql`WITH touched AS (SELECT DISTINCT q.chain_id, q.address FROM ${quotes} AS q),
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
