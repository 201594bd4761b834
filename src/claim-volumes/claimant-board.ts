import { BLOCK_SHIFT } from './block-bounds.js';
import type { ClaimantTotals } from './state.js';

/** What a claimant leaderboard ranks by: USD micros claimed, or claims. */
export type BoardMetric = 'usd' | 'claims';

export interface BoardRequest {
  by: BoardMetric;
  limit: number;
  /** A page by number, or the entries after a cursor's position (its metric as a decimal, its address). */
  page: { offset: number } | { after: { key: string; id: string } };
  count: boolean;
  address?: string;
}

export interface BoardEntry {
  /** Null only for an asked-for address without claims in the window. */
  rank: number | null;
  address: string;
  claims: number;
  usdMicros: number;
}

export interface BoardPage {
  entries: BoardEntry[];
  more: boolean;
  total?: number;
  addressEntry?: BoardEntry;
}

/**
 * One page of the claimants of a window, from their totals in memory, as the database would rank
 * them: every claimant with a claim in the window, by the metric (highest first), then address in
 * binary order; a rank is one more than the claimants with a higher metric (ties share it).
 *
 * A bounded heap keeps the page (the best `offset + limit + 1` after the cursor), filled from the
 * blocks of claimants with the highest bounds (BlockBounds) until no other block can hold one ahead
 * of it; the ranks of the page's entries are read off the heap. The first pages read a few blocks;
 * a deep cursor, or the rank of an address below the page, reads every claimant, not the claims.
 */
export function claimantBoardPage(totals: ClaimantTotals, request: BoardRequest): BoardPage {
  const { count, keys, claims, usdMicros } = totals;
  const metric = request.by === 'usd' ? usdMicros : claims;
  const offset = 'offset' in request.page ? request.page.offset : 0;
  const after = 'after' in request.page ? { value: Number(request.page.after.key), key: keys.keyOf(request.page.after.id), address: request.page.after.id } : undefined;
  const wanted = offset + request.limit + 1;

  // Ahead of `a` in the order: a higher metric, or the same and a lower address.
  const ahead = (a: number, b: number) => metric[a]! > metric[b]! || (metric[a] === metric[b] && keys.compare(a, b) < 0);
  // At or ahead of the cursor's position: the position's address may have no key (any more).
  const passed = (key: number) =>
    metric[key]! > after!.value ||
    (metric[key] === after!.value && (after!.key === undefined ? keys.address(key) <= after!.address : keys.compare(key, after!.key) <= 0));
  // A heap of the best `wanted` seen so far, its root the last of them.
  const heap: number[] = [];
  const siftDown = (from: number) => {
    for (let at = from; ; ) {
      const left = 2 * at + 1;
      const right = left + 1;
      let last = at;
      if (left < heap.length && ahead(heap[last]!, heap[left]!)) last = left;
      if (right < heap.length && ahead(heap[last]!, heap[right]!)) last = right;
      if (last === at) return;
      [heap[at], heap[last]] = [heap[last]!, heap[at]!];
      at = last;
    }
  };
  const siftUp = (from: number) => {
    for (let at = from; at > 0; ) {
      const parent = (at - 1) >> 1;
      if (!ahead(heap[parent]!, heap[at]!)) return;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  };

  // The blocks from the highest bound down, until the heap is full and ahead of every value a block
  // may hold; each block visited whole gets its exact bound.
  const bounds = request.by === 'usd' ? totals.bounds.usd : totals.bounds.claims;
  for (const block of bounds.blocksFromHighest(count)) {
    if (heap.length === wanted && bounds.bound(block) < metric[heap[0]!]!) break;
    let highest = -Infinity;
    for (let key = block << BLOCK_SHIFT, end = Math.min(count, (block + 1) << BLOCK_SHIFT); key < end; key++) {
      if (claims[key]! <= 0) continue;
      if (metric[key]! > highest) highest = metric[key]!;
      if (after && metric[key]! >= after.value && passed(key)) continue;
      if (heap.length < wanted) {
        heap.push(key);
        siftUp(heap.length - 1);
      } else if (ahead(key, heap[0]!)) {
        heap[0] = key;
        siftDown(0);
      }
    }
    bounds.tighten(block, highest);
  }
  const ordered = heap.sort((a, b) => (ahead(a, b) ? -1 : 1)).slice(offset);
  const more = ordered.length > request.limit;
  const page = ordered.slice(0, request.limit);

  const own = request.address === undefined ? undefined : keys.keyOf(request.address);
  const mine = own !== undefined && claims[own]! > 0 ? own : undefined;
  const asked = [...page, ...(mine === undefined ? [] : [mine])].map((key) => metric[key]!);
  // Without a cursor the heap holds every claimant ahead of the page, and of the asked-for address
  // when it is in the heap or ties with its last: their ranks are read off it, without another pass.
  const lastHeld = heap.at(-1);
  const heldAhead =
    after === undefined && (mine === undefined || heap.includes(mine) || (lastHeld !== undefined && metric[lastHeld]! <= metric[mine]!));
  const ranks = heldAhead ? ranksAmong(heap, asked, metric) : ranksOf(asked, metric, claims, count);
  const entryOf = (key: number, rank: number | null): BoardEntry => ({ rank, address: keys.address(key), claims: claims[key]!, usdMicros: usdMicros[key]! });
  return {
    entries: page.map((key, index) => entryOf(key, ranks[index]!)),
    more,
    ...(request.count ? { total: totals.listed } : {}),
    ...(request.address === undefined
      ? {}
      : { addressEntry: mine === undefined ? { rank: null, address: request.address, claims: 0, usdMicros: 0 } : entryOf(mine, ranks[page.length]!) }),
  };
}

/** For each value, one more than the claimants of `sorted` (in rank order, all of those ahead of the value) whose metric is higher. */
function ranksAmong(sorted: readonly number[], values: number[], metric: ArrayLike<number>): number[] {
  return values.map((value) => {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (metric[sorted[middle]!]! > value) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  });
}

/** For each value, one more than the listed claimants whose metric is higher. */
function ranksOf(values: number[], metric: ArrayLike<number>, claims: ArrayLike<number>, count: number): number[] {
  if (values.length === 0) return [];
  const distinct = [...new Set(values)].sort((a, b) => a - b);
  // higher[i]: listed claimants above distinct[i] and at most distinct[i + 1], summed from the top below.
  const higher = new Array<number>(distinct.length).fill(0);
  for (let key = 0; key < count; key++) {
    if (claims[key]! <= 0) continue;
    const value = metric[key]!;
    if (value <= distinct[0]!) continue;
    // The last distinct value below `value`.
    let low = 0;
    let high = distinct.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (distinct[middle]! < value) low = middle;
      else high = middle - 1;
    }
    higher[low]!++;
  }
  for (let at = distinct.length - 2; at >= 0; at--) higher[at]! += higher[at + 1]!;
  const rankOf = new Map(distinct.map((value, at) => [value, higher[at]! + 1]));
  return values.map((value) => rankOf.get(value)!);
}
