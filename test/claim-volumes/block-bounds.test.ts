import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BLOCK_SHIFT, BlockBounds, blocksOf } from '../../src/claim-volumes/block-bounds.js';

describe('BlockBounds', () => {
  it('gives the blocks highest bound first, equal bounds lower block first, unvisited (unbounded) ones ahead of all', () => {
    const value = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 1_000_000 }));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 * (1 << BLOCK_SHIFT) }), fc.array(fc.tuple(fc.nat(), value)), fc.array(fc.nat()), (keys, raises, visited) => {
        const bounds = new BlockBounds(keys);
        const blocks = blocksOf(keys);
        // Some blocks visited (tightened to nothing), then raised by values of their keys.
        for (const block of visited) if (blocks > 0) bounds.tighten(block % blocks, -Infinity);
        for (const [key, raised] of raises) if (keys > 0) bounds.raise(key % keys, raised);
        const expected = Array.from({ length: blocks }, (_, block) => block).sort((a, b) => bounds.bound(b) - bounds.bound(a) || a - b);
        expect([...bounds.blocksFromHighest(keys)]).toEqual(expected);
      }),
    );
  });

  it('lets the caller tighten the block it was given before it takes the next', () => {
    const bounds = new BlockBounds(4 << BLOCK_SHIFT);
    [5, 9, 7, 9].forEach((value, block) => {
      bounds.tighten(block, -Infinity);
      bounds.raise(block << BLOCK_SHIFT, value);
    });
    const taken: number[] = [];
    for (const block of bounds.blocksFromHighest(4 << BLOCK_SHIFT)) {
      taken.push(block);
      bounds.tighten(block, 0);
    }
    expect(taken).toEqual([1, 3, 2, 0]);
  });
});
