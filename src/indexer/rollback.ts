import type { Rpc } from '../chain/rpc.js';
import type { DatabaseHandle } from '../db/client.js';
import type { DeletionRecord, UpsertRecord } from '../ingest/records.js';
import { withIncentivesRead } from './campaign-record.js';
import { boostsTouchedAfter, type CoreId, journalAfter, knownIncentives, storedCampaigns } from './store.js';

/**
 * What undoes the blocks after a fork: the journal's records, with the incentives of every boost
 * those blocks touched read again from the chain at `readAt`. The journal restores a campaign as it
 * was written before the orphaned blocks, but that write read the balances at its range's end,
 * which may lie past the fork (a range that keeps one block and orphans the next); and the new
 * branch may have no log of the incentive that would have it read again.
 */
export async function rollbackRecords(rpc: Rpc, database: DatabaseHandle, id: CoreId, fork: bigint, readAt: bigint): Promise<(DeletionRecord | UpsertRecord)[]> {
  const [undo, touched] = await Promise.all([journalAfter(database, id, fork), boostsTouchedAfter(database, id, fork)]);
  if (touched.length === 0) return undo;
  const undoneAt = new Map<string, number>();
  undo.forEach((record, index) => {
    if (record.kind === 'campaign' && record.chainId === id.chainId && record.coreAddress.toLowerCase() === id.core) undoneAt.set(record.identifier, index);
  });
  const notUndone = touched.filter((boostId) => !undoneAt.has(boostId));
  const [stored, contracts] = await Promise.all([storedCampaigns(database, id, notUndone), knownIncentives(database, id, touched)]);
  const rereads = await Promise.all(
    touched.map(async (boostId) => {
      const at = undoneAt.get(boostId);
      const restored = at === undefined ? stored.get(boostId) : undo[at];
      // Gone with the orphaned blocks (created after the fork), or never written.
      if (!restored || restored.kind !== 'campaign' || ('deleted' in restored && restored.deleted)) return null;
      return { at, record: await withIncentivesRead(rpc, readAt, restored, (contracts.get(boostId) ?? []).filter(Boolean)) };
    }),
  );
  const records = [...undo];
  for (const reread of rereads) {
    if (!reread) continue;
    if (reread.at === undefined) records.push(reread.record);
    else records[reread.at] = reread.record;
  }
  return records;
}
