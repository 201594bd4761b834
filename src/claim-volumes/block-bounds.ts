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

  /** The blocks of the first `keys` keys, highest bound first. */
  blocksFromHighest(keys: number): Int32Array {
    const order = Int32Array.from({ length: blocksOf(keys) }, (_, block) => block);
    return order.sort((a, b) => this.bounds[b]! - this.bounds[a]! || a - b);
  }
}

/** Blocks that hold `keys` keys. */
export const blocksOf = (keys: number) => (keys + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
