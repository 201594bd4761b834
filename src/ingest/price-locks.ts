import { sql } from 'drizzle-orm';
import type { BulkSession } from '../db/client.js';
import { stageTable } from './merge.js';

/**
 * Writing claims and writing prices of one chain, one after the other where they meet.
 *
 * A claim is valued when it is written, from the prices committed then; a price write values the
 * waiting claims committed then. Run side by side at READ COMMITTED, each can miss the other: the
 * claim is written waiting because the price was not committed yet, and the price write's
 * revaluation did not see the claim, which would wait for the next price of its token. So a
 * transaction that writes claims holds a shared lock per chain of them from before it values them
 * to its commit, and a price write takes that chain's lock exclusively before it stores a price:
 * whichever comes second sees what the first committed. Claim writes do not wait for each other.
 * Both take these locks before any row lock of campaigns (which their triggers and the indexer's
 * basis check take), so that neither waits for a row the other holds while holding this lock.
 *
 * Transaction-level advisory locks (PgBouncer's transaction mode keeps them), keyed (this
 * constant, chain id), taken in chain order by both sides so that two writers never wait for each
 * other in a circle; the campaign refresh's locks (lock_campaign_refresh) come later in either
 * transaction, never before these.
 */
const CLAIMS_AND_PRICES_LOCK = 731_284_158;

/**
 * In an ingest, before the merge values its claims: shared for the chains of its claims, exclusive
 * for the chains of its tokens that carry a price (an imported price enters the history and values
 * waiting claims in the merge, as a price write does).
 */
export async function lockChainsOfStagedRecords(session: BulkSession): Promise<void> {
  const rows = await session.query<{ chain_id: number; prices: boolean }>(
    sql.raw(`SELECT chain_id, bool_or(prices) AS prices
               FROM (SELECT chain_id, false AS prices FROM ${stageTable('claim')} WHERE NOT deleted
                     UNION ALL
                     SELECT (record->>'chainId')::int, true FROM ${stageTable('token')}
                      WHERE NOT deleted AND record->>'priceUsd' IS NOT NULL) AS chains
              GROUP BY chain_id ORDER BY chain_id`),
  );
  for (const { chain_id, prices } of rows) {
    await session.query(
      prices
        ? sql`SELECT pg_advisory_xact_lock(${CLAIMS_AND_PRICES_LOCK}, ${chain_id})`
        : sql`SELECT pg_advisory_xact_lock_shared(${CLAIMS_AND_PRICES_LOCK}, ${chain_id})`,
    );
  }
}

/** In a transaction writing prices: before the first price is stored. */
export async function lockChainsForPrices(session: BulkSession, chainIds: Iterable<number>): Promise<void> {
  for (const chainId of [...new Set(chainIds)].sort((a, b) => a - b)) {
    await session.query(sql`SELECT pg_advisory_xact_lock(${CLAIMS_AND_PRICES_LOCK}, ${chainId})`);
  }
}
