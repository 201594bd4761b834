import { sql } from 'drizzle-orm';
import type { BulkSession } from '../db/client.js';
import type { IngestRecord } from './records.js';
import { stageTable } from './staging.js';

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
 * Prices are written three ways: writePrices() (the price job), an import's price records (the same
 * write path in the import's merge, merge-prices.ts), and an import's token record with a price
 * (record_import_prices(), a trigger of the import's merge): all take the lock exclusively.
 *
 * Transaction-level advisory locks (PgBouncer's transaction mode keeps them), keyed (this
 * constant, chain id): the campaign refresh's are (731284156, 0) and (731284157, campaign key)
 * (lock_campaign_refresh.sql), the price job's session lock (731284159, 0) (src/price-job/from-config.ts),
 * the claim feed's pruning a single bigint key, another key space.
 *
 * Order: these are the first locks either transaction takes, in chain order, before it writes or
 * locks a row of a table. A price write moves tokens' current prices, whose trigger refreshes the
 * campaigns paying them, and an imported price revalues claims in the import's merge, which
 * updates incentives and locks their campaigns' rows (the foreign key's check); a claim write
 * locks campaigns, the indexer's (src/indexer/basis.ts) before its merge and every writer's through
 * the same triggers. Were one of these taken after such a lock, the price write holding this one
 * would wait for the claim write's row, and the claim write for this lock: a deadlock, which
 * PostgreSQL ends by failing one of them.
 */
const CLAIMS_AND_PRICES_LOCK = 731_284_158;

/**
 * In an ingest transaction, after staging and before anything is merged (and before the indexer's
 * basis locks rows): shared for each chain of the staged claims, exclusive for each chain of a
 * staged price record or token record with a price (the merge records it as a price); none for an
 * input with neither.
 * A chain with both gets the exclusive lock only: asking for it while holding the shared one would
 * deadlock with another transaction doing the same.
 */
export async function lockChainsOfStagedRecords(session: BulkSession): Promise<void> {
  const rows = await session.query<{ chain_id: number; prices: boolean }>(
    sql.raw(`SELECT chain_id, bool_or(prices) AS prices
               FROM (SELECT chain_id, false AS prices FROM ${stageTable('claim')} WHERE NOT deleted
                     UNION ALL
                     SELECT (record->>'chainId')::integer, true FROM ${stageTable('token')}
                      WHERE NOT deleted AND (record->>'priceUsd')::numeric > 0
                     UNION ALL
                     SELECT (record->>'chainId')::integer, true FROM ${stageTable('price')} WHERE NOT deleted) AS chains
              GROUP BY chain_id`),
  );
  await lockChains(session, new Map(rows.map((row) => [row.chain_id, row.prices])));
}

/** The same for records held in memory (the direct path, src/ingest/direct.ts). */
export async function lockChainsOfRecords(session: BulkSession, records: readonly IngestRecord[]): Promise<void> {
  const chains = new Map<number, boolean>();
  for (const record of records) {
    if (record.deleted === true) continue;
    if (record.kind === 'claim') chains.set(record.chainId, chains.get(record.chainId) === true);
    if (record.kind === 'token' && Number(record.priceUsd ?? 0) > 0) chains.set(record.chainId, true);
    if (record.kind === 'price') chains.set(record.chainId, true);
  }
  await lockChains(session, chains);
}

/** By chain, in chain order: exclusive where prices are written, shared where only claims are. */
async function lockChains(session: BulkSession, prices: ReadonlyMap<number, boolean>): Promise<void> {
  for (const chainId of [...prices.keys()].sort((a, b) => a - b)) {
    await session.query(
      prices.get(chainId)
        ? sql`SELECT pg_advisory_xact_lock(${CLAIMS_AND_PRICES_LOCK}, ${chainId})`
        : sql`SELECT pg_advisory_xact_lock_shared(${CLAIMS_AND_PRICES_LOCK}, ${chainId})`,
    );
  }
}

/** In a transaction writing prices: its first statement, before the first price is stored. */
export async function lockChainsForPrices(session: BulkSession, chainIds: Iterable<number>): Promise<void> {
  for (const chainId of [...new Set(chainIds)].sort((a, b) => a - b)) {
    await session.query(sql`SELECT pg_advisory_xact_lock(${CLAIMS_AND_PRICES_LOCK}, ${chainId})`);
  }
}
