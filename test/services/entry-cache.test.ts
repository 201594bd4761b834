import { describe, expect, it } from 'vitest';
import { type BuiltEntry, EntryCache } from '../../src/services/entry-cache.js';

const built = (version: string): BuiltEntry => ({
  version,
  head: Buffer.from('{"id":"x"'),
  tokenMetadata: undefined,
  allowListType: null,
  verificationLevel: null,
  rewardUsd: [],
});

describe('EntryCache', () => {
  it('returns an entry only for the version it was built at, and forgets it on another', () => {
    const cache = new EntryCache({ maxEntries: 10 });
    cache.set(1, built('a'));
    expect(cache.get(1, 'a')?.version).toBe('a');
    expect(cache.get(1, 'b')).toBeUndefined();
    expect(cache.get(1, 'a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('lets the least recently used entry go first', () => {
    const cache = new EntryCache({ maxEntries: 2 });
    cache.set(1, built('a'));
    cache.set(2, built('a'));
    expect(cache.get(1, 'a')).toBeDefined(); // 2 is now the least recently used
    cache.set(3, built('a'));
    expect(cache.size).toBe(2);
    expect(cache.get(2, 'a')).toBeUndefined();
    expect(cache.get(1, 'a')).toBeDefined();
    expect(cache.get(3, 'a')).toBeDefined();
  });

  it('lets the least recently used go when every entry was used', () => {
    const cache = new EntryCache({ maxEntries: 3 });
    for (const key of [1, 2, 3]) cache.set(key, built('a'));
    for (const key of [1, 2, 3]) expect(cache.get(key, 'a')).toBeDefined();
    // All three used, 1 first: 1 is the least recently used and goes.
    cache.set(4, built('a'));
    expect(cache.size).toBe(3);
    expect(cache.get(1, 'a')).toBeUndefined();
    // Then 2, used before 3, and 4 is new: 2 goes next.
    cache.set(5, built('a'));
    expect(cache.get(2, 'a')).toBeUndefined();
    expect([3, 4, 5].map((key) => cache.get(key, 'a') !== undefined)).toEqual([true, true, true]);
  });

  it('keeps nothing with maxEntries 0, and nothing after clear()', () => {
    const none = new EntryCache({ maxEntries: 0 });
    none.set(1, built('a'));
    expect(none.get(1, 'a')).toBeUndefined();
    const some = new EntryCache({ maxEntries: 10 });
    some.set(1, built('a'));
    some.clear();
    expect(some.size).toBe(0);
  });
});
