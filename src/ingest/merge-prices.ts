import { sql } from 'drizzle-orm';
import type { BulkSession } from '../db/client.js';
import { IMPORT_SOURCE } from './price-quote.js';
import { jumpReason, revalueClaims, storePrices } from './prices.js';
import type { StagedRows } from './staged-rows.js';
import { failWith, PROBLEM_LIMIT } from './write-types.js';

/**
 * An input's price records into the price history through the write path of prices (prices.ts), as
 * the price job's quotes go, in the input's transaction: the same refusal of a price too far from
 * its token's nearest known one, the same rows (source `import`), the same revaluation of the claims
 * that waited for them, through the claims' triggers. Where an input differs from the price job:
 * a refused price fails the whole input, naming its line; a record whose price is stored already
 * replaces it (the record is the row); and the claims are valued before the commit, so readers see
 * the prices and the values together. The input's claims come after its prices (the kinds' order),
 * so they are valued as they are written.
 *
 * The caller holds the exclusive price lock of each chain of the records (lockChainsOfStagedRecords(),
 * lockChainsOfRecords()).
 */
export async function mergePrices(session: BulkSession, rows: StagedRows): Promise<{ inserted: number; updated: number }> {
  const quotes = sql`(SELECT s.line AS ord, (s.record->>'chainId')::integer AS chain_id, s.record->>'address' AS address,
                             (s.record->>'at')::timestamptz AS at, ${IMPORT_SOURCE}::text AS source, (s.record->>'priceUsd')::numeric AS price_usd
                        FROM ${rows.relation('price')} AS s
                       WHERE NOT s.deleted)`;
  const stored = await storePrices(session, quotes, { replace: true, allOrNothing: PROBLEM_LIMIT });
  if (stored.refused.length > 0) {
    failWith(stored.refused.map((jump) => ({ line: jump.ord, message: `price.priceUsd ${jumpReason(jump)}` })));
  }
  for (const span of stored.spans) await revalueClaims((query) => session.query(query), span, null);
  return { inserted: stored.inserted, updated: stored.updated };
}
