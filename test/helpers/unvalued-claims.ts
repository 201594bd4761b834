import type { DatabaseHandle } from '../../src/db/client.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import type { ClaimRecord } from '../../src/ingest/records.js';
import { type IngestOptions, ingest } from '../../src/ingest/write.js';

let logIndex = 0;

/**
 * Claims as the indexer writes them, without values (the write path values them from the price
 * history, or leaves them waiting), each with a transaction hash of its own, of incentive 0 of
 * `campaign` by one claimant.
 */
export function unvaluedClaims(chainId: number, campaign: string, list: readonly { amount: string; at: Date }[]): ClaimRecord[] {
  return list.map(({ amount, at }) => ({
    kind: 'claim',
    chainId,
    txHash: `0x${(++logIndex).toString(16).padStart(64, '0')}`,
    logIndex,
    campaign,
    incentivePosition: 0,
    claimant: '0x00000000000000000000000000000000000000aa',
    amount,
    claimedAt: at.toISOString(),
  }));
}

/** Writes them as the indexer does (derived live). */
export async function writeUnvaluedClaims(
  database: DatabaseHandle,
  chainId: number,
  campaign: string,
  list: readonly { amount: string; at: Date }[],
  options: IngestOptions = {},
): Promise<void> {
  await ingest(database, memorySource(unvaluedClaims(chainId, campaign, list)), { derived: 'live', ...options });
}
