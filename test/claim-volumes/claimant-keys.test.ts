import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClaimantKeys } from '../../src/claim-volumes/claimant-keys.js';

const addressArbitrary = fc
  .oneof(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.constantFrom(new Uint8Array(20), new Uint8Array(20).fill(255)))
  .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`);

describe('ClaimantKeys', () => {
  it('gives each address one key in the order first seen, finds it again, and orders as the strings do', () => {
    fc.assert(
      fc.property(fc.array(addressArbitrary, { maxLength: 400 }), (addresses) => {
        const keys = new ClaimantKeys();
        const firstSeen = [...new Set(addresses)];
        for (const address of addresses) expect(keys.keyFor(address)).toBe(firstSeen.indexOf(address));
        expect(keys.size).toBe(firstSeen.length);
        firstSeen.forEach((address, key) => {
          expect(keys.keyOf(address)).toBe(key);
          expect(keys.address(key)).toBe(address);
        });
        for (let a = 0; a < Math.min(firstSeen.length, 40); a++) {
          for (let b = 0; b < Math.min(firstSeen.length, 40); b++) {
            expect(Math.sign(keys.compare(a, b))).toBe(Math.sign(firstSeen[a]! < firstSeen[b]! ? -1 : firstSeen[a]! > firstSeen[b]! ? 1 : 0));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('grows past its first table and buffer, and keeps only the kept keys when compacted, in order', () => {
    const keys = new ClaimantKeys();
    const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
    for (let n = 0; n < 5000; n++) expect(keys.keyFor(address(n * 7919))).toBe(n);
    expect(keys.keyOf(address(1))).toBeUndefined();
    expect(keys.keyOf('0xNOPE')).toBeUndefined();
    expect(() => keys.keyFor('0xABC')).toThrow(RangeError);
    const kept = new Int32Array(5000).fill(-1);
    for (const key of [4999, 3, 17]) kept[key] = 0;
    const compacted = keys.compact(kept);
    expect(compacted.size).toBe(3);
    expect([kept[3], kept[17], kept[4999]]).toEqual([0, 1, 2]);
    expect(compacted.address(2)).toBe(address(4999 * 7919));
    expect(compacted.keyOf(address(17 * 7919))).toBe(1);
    expect(compacted.keyOf(address(5 * 7919))).toBeUndefined();
  });
});
