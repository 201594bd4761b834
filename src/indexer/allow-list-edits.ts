import type { Hex } from 'viem';
import { type AllowListEditSource, type EditableListType, type ListEdit, readListEdits } from '../chain/allow-list-calls.js';
import type { Rpc } from '../chain/rpc.js';
import type { AllowListRecord } from '../ingest/records.js';
import type { BatchState } from './batch-state.js';
import { storedEditableLists } from './store.js';

/**
 * The members of SimpleAllowLists and SimpleDenyLists as a block range changes them: the owners'
 * and managers' edits (setAllowed, setDenied: no event; src/chain/allow-list-calls.ts finds the
 * calls) and the claims of AllowListIncentives (claim-records.ts), applied in chain order to the
 * stored lists and those this range writes. Every campaign gated by a list reads it by address, so
 * the campaigns that share a list follow its edits together. Each block that changes a list is
 * journaled with the list as it was before that block, so that a reorganisation orphaning an edit
 * gives the list back as it was.
 */

/** Addresses a call made members of a list or took out of it, at its place in the chain. */
export interface MemberChange {
  list: string;
  blockNumber: bigint;
  transactionIndex: number;
  callIndex: number;
  changes: { address: string; member: boolean }[];
  /** A change that applies to one list type only (an AllowListIncentive calls setAllowed). */
  onlyType?: EditableListType;
}

const EDITABLE = new Set<string>(['SimpleAllowList', 'SimpleDenyList']);

const byChainOrder = (a: MemberChange, b: MemberChange) =>
  a.blockNumber === b.blockNumber ? a.transactionIndex - b.transactionIndex || a.callIndex - b.callIndex : a.blockNumber < b.blockNumber ? -1 : 1;

/**
 * Reads the range's edits of every editable list known (stored, or written by this range), applies
 * them with `joins` to `state`, and returns the blocks that hold an edit, with the hash each was read
 * at (null when the source does not say), for the range to check and remember.
 */
export async function followListEdits(
  state: BatchState,
  rpc: Rpc,
  source: AllowListEditSource,
  range: { from: bigint; to: bigint },
  joins: readonly MemberChange[],
): Promise<Map<bigint, Hex | null>> {
  let edits: ListEdit[] = [];
  if (source !== 'off') {
    const lists = await storedEditableLists(state.database, state.id.chainId);
    for (const [address, record] of state.allowLists) if (EDITABLE.has(record.type)) lists.set(address, record.type as EditableListType);
    edits = await readListEdits(rpc, source, lists, range.from, range.to);
  }
  await applyMemberChanges(state, [...joins, ...edits]);
  const blocks = new Map<bigint, Hex | null>();
  for (const edit of edits) if (!blocks.get(edit.blockNumber)) blocks.set(edit.blockNumber, edit.blockHash);
  return blocks;
}

/** The changes applied in chain order, each list written once with its members at the end of the range. */
export async function applyMemberChanges(state: BatchState, changes: readonly MemberChange[]): Promise<void> {
  const byList = new Map<string, MemberChange[]>();
  for (const change of [...changes].sort(byChainOrder)) {
    const listChanges = byList.get(change.list) ?? [];
    listChanges.push(change);
    byList.set(change.list, listChanges);
  }
  const { chainId } = state.id;
  for (const [contractAddress, listChanges] of byList) {
    const existing = await state.allowList(contractAddress);
    if (!existing || !EDITABLE.has(existing.type)) continue;
    const deletion = { kind: 'allowList', deleted: true, chainId, contractAddress } as const;
    // A list this range writes for the first time is followed from the block it is written at.
    const key = JSON.stringify({ chainId, contractAddress });
    const since = state.journal.find((entry) => entry.kind === 'allowList' && entry.naturalKey === key && 'deleted' in entry.record)?.blockNumber ?? 0n;
    let record: AllowListRecord = existing;
    let journaled: bigint | null = null;
    for (const change of listChanges) {
      if (change.blockNumber < since || (change.onlyType && change.onlyType !== record.type)) continue;
      const members = new Set(record.addresses ?? []);
      for (const { address, member } of change.changes) {
        if (member) members.add(address);
        else members.delete(address);
      }
      const before = new Set(record.addresses ?? []);
      if (members.size === before.size && [...members].every((address) => before.has(address))) continue;
      if (journaled !== change.blockNumber) state.journalUndo(change.blockNumber, deletion, record);
      journaled = change.blockNumber;
      record = { ...record, addresses: [...members].sort() };
    }
    if (record !== existing) state.allowLists.set(contractAddress, record);
  }
}
