import { decodeFunctionData, type Hex, toFunctionSelector } from 'viem';
import { allowListEditAbi } from './abi.js';
import { isRangeTooLarge } from './logs.js';
import type { Rpc } from './rpc.js';

/**
 * The calls that edit SimpleAllowLists and SimpleDenyLists (setAllowed, setDenied): they emit no
 * event, so they are found among a block range's calls, in one of three ways (docs/operations.md,
 * "Allow-list edits", gives each one's cost and what it misses):
 *
 * - transactions: every block of the range with its transactions, and the receipt of each
 *   transaction sent to a list with an edit as its input (was it reverted?). Any node answers it;
 *   an edit made through another contract (a multisig, a helper) is not seen.
 * - trace_filter: the range's call traces to the lists (trace_filter), and the traces of each
 *   transaction with one (trace_transaction), to drop a call that a call around it reverted.
 *   Sees every call; the node needs the trace_ namespace (Erigon, Reth, Nethermind, anvil).
 * - debug_trace: every block of the range traced with the callTracer (debug_traceBlockByNumber).
 *   Sees every call; the node needs the debug_ namespace (Geth and most others).
 */

export const ALLOW_LIST_EDIT_SOURCES = ['transactions', 'trace_filter', 'debug_trace', 'off'] as const;
export type AllowListEditSource = (typeof ALLOW_LIST_EDIT_SOURCES)[number];

export type EditableListType = 'SimpleAllowList' | 'SimpleDenyList';

/** One successful setAllowed or setDenied: each address is a member of the list afterwards, or not. */
export interface ListEdit {
  list: string;
  blockNumber: bigint;
  /** The hash of the block the call was read from; null when the source does not say (debug_trace). */
  blockHash: Hex | null;
  transactionIndex: number;
  /** Its place among the transaction's calls, in the order they ran. */
  callIndex: number;
  changes: { address: string; member: boolean }[];
}

/** The edit each list type takes: setAllowed (members are the allowed) or setDenied (members are the denied). */
const EDIT_FUNCTION: Record<EditableListType, 'setAllowed' | 'setDenied'> = { SimpleAllowList: 'setAllowed', SimpleDenyList: 'setDenied' };
const SELECTORS = new Set(allowListEditAbi.map((item) => toFunctionSelector(item)));

/** Blocks read at once: a busy chain's full blocks are large. */
const BLOCKS_AT_ONCE = 100;
/** Lists named in one trace_filter: a chain has a list for nearly every boost, and nodes bound a request's size. */
const ADDRESSES_PER_FILTER = 1000;

const lower = (value: string) => value.toLowerCase();
const hex = (value: bigint) => `0x${value.toString(16)}`;
/** A method viem does not type (the trace_ and debug_ namespaces). */
const request = <T>(rpc: Rpc, method: string, params: unknown[]) =>
  rpc.client.request<{ Method: string; Parameters: unknown[]; ReturnType: T }>({ method, params });

/** The changes a call makes to a list of this type, or null when it is not that list's edit. */
export function decodeEdit(type: EditableListType, input: Hex): ListEdit['changes'] | null {
  if (!SELECTORS.has(input.slice(0, 10).toLowerCase() as Hex)) return null;
  try {
    const { functionName, args } = decodeFunctionData({ abi: allowListEditAbi, data: input });
    const [users, flags] = args;
    // Either mismatch reverts on chain (another list type has no such function; LengthMismatch).
    if (functionName !== EDIT_FUNCTION[type] || users.length !== flags.length) return null;
    return users.map((address, index) => ({ address: lower(address), member: flags[index]! }));
  } catch {
    return null;
  }
}

/** The edits of `lists` (lowercase address -> type) from `from` to `to`, in chain order. */
export async function readListEdits(
  rpc: Rpc,
  source: AllowListEditSource,
  lists: ReadonlyMap<string, EditableListType>,
  from: bigint,
  to: bigint,
): Promise<ListEdit[]> {
  if (source === 'off' || lists.size === 0) return [];
  const edits =
    source === 'transactions'
      ? await transactionEdits(rpc, lists, from, to)
      : source === 'trace_filter'
        ? await traceFilterEdits(rpc, lists, from, to)
        : await debugTraceEdits(rpc, lists, from, to);
  return edits.sort((a, b) => (a.blockNumber === b.blockNumber ? a.transactionIndex - b.transactionIndex || a.callIndex - b.callIndex : a.blockNumber < b.blockNumber ? -1 : 1));
}

/** `read` on each block from `from` to `to`, BLOCKS_AT_ONCE at a time. */
async function eachBlock<T>(from: bigint, to: bigint, read: (blockNumber: bigint) => Promise<T[]>): Promise<T[]> {
  const found: T[] = [];
  for (let start = from; start <= to; start += BigInt(BLOCKS_AT_ONCE)) {
    const end = start + BigInt(BLOCKS_AT_ONCE) - 1n < to ? start + BigInt(BLOCKS_AT_ONCE) - 1n : to;
    const numbers: bigint[] = [];
    for (let number = start; number <= end; number++) numbers.push(number);
    for (const part of await Promise.all(numbers.map(read))) found.push(...part);
  }
  return found;
}

async function transactionEdits(rpc: Rpc, lists: ReadonlyMap<string, EditableListType>, from: bigint, to: bigint): Promise<ListEdit[]> {
  const candidates = await eachBlock(from, to, async (blockNumber) => {
    const block = await rpc.withRetries(`eth_getBlockByNumber ${blockNumber} (transactions)`, () =>
      rpc.client.getBlock({ blockNumber, includeTransactions: true }),
    );
    return block.transactions.flatMap((transaction) => {
      const list = transaction.to ? lower(transaction.to) : null;
      const type = list ? lists.get(list) : undefined;
      const changes = type && decodeEdit(type, transaction.input);
      if (!list || !changes) return [];
      const edit: ListEdit = { list, blockNumber, blockHash: block.hash, transactionIndex: transaction.transactionIndex, callIndex: 0, changes };
      return [{ edit, hash: transaction.hash }];
    });
  });
  const receipts = await Promise.all(
    candidates.map(({ hash }) => rpc.withRetries(`eth_getTransactionReceipt ${hash}`, () => rpc.client.getTransactionReceipt({ hash }))),
  );
  return candidates.filter((_, index) => receipts[index]!.status === 'success').map(({ edit }) => edit);
}

/** A trace as the trace_ namespace gives it (Parity/OpenEthereum style). */
interface FlatTrace {
  type: string;
  action: { callType?: string; to?: string; input?: Hex };
  error?: string;
  traceAddress: number[];
  blockNumber: number;
  blockHash: Hex;
  transactionHash: Hex;
  transactionPosition: number;
}

async function traceFilterEdits(rpc: Rpc, lists: ReadonlyMap<string, EditableListType>, from: bigint, to: bigint): Promise<ListEdit[]> {
  const addresses = [...lists.keys()];
  const found: FlatTrace[] = [];
  for (let first = 0; first < addresses.length; first += ADDRESSES_PER_FILTER) {
    const toAddress = addresses.slice(first, first + ADDRESSES_PER_FILTER);
    found.push(...(await splitting(rpc, from, to, (start, end) => request<FlatTrace[]>(rpc, 'trace_filter', [{ fromBlock: hex(start), toBlock: hex(end), toAddress }]))));
  }
  const transactions = [...new Set(found.filter((trace) => !trace.error).map((trace) => trace.transactionHash))];
  const traced = await Promise.all(
    transactions.map((hash) =>
      rpc.withRetries(`trace_transaction ${hash}`, () => request<FlatTrace[]>(rpc, 'trace_transaction', [hash])),
    ),
  );
  return traced.flatMap((traces) => {
    // A call is undone when it or any call around it (a prefix of its trace address) failed.
    const failed = traces.filter((trace) => trace.error).map((trace) => trace.traceAddress.join('.'));
    const undone = (trace: FlatTrace) => failed.some((address) => address === '' || `${trace.traceAddress.join('.')}.`.startsWith(`${address}.`));
    return traces.flatMap((trace, callIndex) => {
      const list = trace.action.to && lower(trace.action.to);
      const type = list ? lists.get(list) : undefined;
      if (!type || trace.type !== 'call' || trace.action.callType !== 'call' || !trace.action.input || undone(trace)) return [];
      const changes = decodeEdit(type, trace.action.input);
      if (!changes) return [];
      const at = { blockNumber: BigInt(trace.blockNumber), blockHash: trace.blockHash, transactionIndex: trace.transactionPosition };
      return [{ list: list!, ...at, callIndex, changes }];
    });
  });
}

/** A frame of the callTracer. */
interface CallFrame {
  type: string;
  to?: string;
  input?: Hex;
  error?: string;
  calls?: CallFrame[];
}

async function debugTraceEdits(rpc: Rpc, lists: ReadonlyMap<string, EditableListType>, from: bigint, to: bigint): Promise<ListEdit[]> {
  return eachBlock(from, to, async (blockNumber) => {
    const traces = await rpc.withRetries(`debug_traceBlockByNumber ${blockNumber}`, () =>
      request<{ result: CallFrame }[]>(rpc, 'debug_traceBlockByNumber', [hex(blockNumber), { tracer: 'callTracer' }]),
    );
    return traces.flatMap(({ result }, transactionIndex) => {
      const edits: ListEdit[] = [];
      const visit = (frame: CallFrame) => {
        // A failed frame undoes every call inside it.
        if (frame.error) return;
        const list = frame.to && lower(frame.to);
        const type = list ? lists.get(list) : undefined;
        const changes = type && frame.type === 'CALL' && frame.input ? decodeEdit(type, frame.input) : null;
        if (changes) edits.push({ list: list!, blockNumber, blockHash: null, transactionIndex, callIndex: edits.length, changes });
        for (const call of frame.calls ?? []) visit(call);
      };
      visit(result);
      return edits;
    });
  });
}

/** `fetch` over the range, split in halves while the node refuses it as too large, retried otherwise. */
async function splitting<T>(rpc: Rpc, from: bigint, to: bigint, fetch: (start: bigint, end: bigint) => Promise<T[]>): Promise<T[]> {
  try {
    return await rpc.withRetries(`trace_filter ${from}-${to}`, () => fetch(from, to), { isFinal: (error) => to > from && isRangeTooLarge(error) });
  } catch (error) {
    if (!(to > from && isRangeTooLarge(error))) throw error;
    const middle = from + (to - from) / 2n;
    return [...(await splitting(rpc, from, middle, fetch)), ...(await splitting(rpc, middle + 1n, to, fetch))];
  }
}
