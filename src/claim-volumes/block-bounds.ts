/** Keys per block: 2^BLOCK_SHIFT. */
export const BLOCK_SHIFT = 8;

/**
 * An upper bound of a column's values in each block of 2^BLOCK_SHIFT consecutive keys, so that a
 * search for the highest values visits the blocks from the highest bound down and stops at the first
 * one whose bound is below what it already holds: a leaderboard's first pages read a few blocks, not
 * every claimant.
 *
 * A bound is never below a value of its block: a value that rises raises it (`raise`, on every
 * change), a value that falls leaves it where it was, too high but still a bound, until a visit of
 * the whole block sets it to the block's highest value of that moment (`tighten`). A block not yet
 * visited is unbounded (+Infinity), so new keys and grown columns start out correct.
 */
export class BlockBounds {
  private bounds: Float64Array;

  constructor(keys: number) {
    this.bounds = new Float64Array(blocksOf(keys)).fill(Infinity);
  }

  /** Room for `keys` keys; the new blocks are unbounded. */
  reserve(keys: number): void {
    const blocks = blocksOf(keys);
    if (blocks <= this.bounds.length) return;
    const bigger = new Float64Array(blocks).fill(Infinity);
    bigger.set(this.bounds);
    this.bounds = bigger;
  }

  /** The value of `key` is now `value`. */
  raise(key: number, value: number): void {
    const block = key >> BLOCK_SHIFT;
    if (value > this.bounds[block]!) this.bounds[block] = value;
  }

  bound(block: number): number {
    return this.bounds[block]!;
  }

  /** A visit found `highest` the highest value of `block` (-Infinity for none listed). */
  tighten(block: number, highest: number): void {
    this.bounds[block] = highest;
  }

  /**
   * The blocks of the first `keys` keys, highest bound first (equal bounds: the lower block first),
   * one at a time off a heap: a search takes a few, and sorting every block on every request cost
   * more than reading the few it took, more so as claimants (and blocks) came.
   */
  *blocksFromHighest(keys: number): Generator<number, void, undefined> {
    const { bounds } = this;
    let size = blocksOf(keys);
    const heap = new Int32Array(size);
    for (let block = 0; block < size; block++) heap[block] = block;
    const ahead = (a: number, b: number) => bounds[a]! > bounds[b]! || (bounds[a] === bounds[b] && a < b);
    const siftDown = (from: number) => {
      for (let at = from; ; ) {
        const left = 2 * at + 1;
        const right = left + 1;
        let first = at;
        if (left < size && ahead(heap[left]!, heap[first]!)) first = left;
        if (right < size && ahead(heap[right]!, heap[first]!)) first = right;
        if (first === at) return;
        [heap[at], heap[first]] = [heap[first]!, heap[at]!];
        at = first;
      }
    };
    for (let at = (size >> 1) - 1; at >= 0; at--) siftDown(at);
    while (size > 0) {
      const top = heap[0]!;
      heap[0] = heap[--size]!;
      siftDown(0);
      // The caller may tighten `top` before it takes the next: `top` is off the heap by then.
      yield top;
    }
  }
}

/** Blocks that hold `keys` keys. */
export const blocksOf = (keys: number) => (keys + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
