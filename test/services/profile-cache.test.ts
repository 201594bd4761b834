import { describe, expect, it } from 'vitest';
import { type KeptProfile, ProfileCache } from '../../src/services/profile-cache.js';

const AT = Date.parse('2026-11-20T12:00:00Z');

function profile(bytes: number, validUntil: number | null = null): KeptProfile {
  return { state: 's', snapshot: '1:1:', builtAt: AT, validUntil, keys: [], volumes: new Float64Array(), body: Buffer.alloc(bytes), etag: '"e"' };
}

describe('ProfileCache', () => {
  it('offers a kept profile only within its clock window', () => {
    const cache = new ProfileCache({ maxBytes: 1000 });
    cache.set('a', profile(10, AT + 60_000));
    expect(cache.candidate('a', new Date(AT))).toBeDefined();
    expect(cache.candidate('a', new Date(AT + 59_999))).toBeDefined();
    // Not for an instant before it was built, though kept for later ones.
    expect(cache.candidate('a', new Date(AT - 1))).toBeUndefined();
    expect(cache.size).toBe(1);
    // From the next start or end on: gone.
    expect(cache.candidate('a', new Date(AT + 60_000))).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.keptBytes).toBe(0);
    cache.set('b', profile(10, null));
    expect(cache.candidate('b', new Date(AT + 10 * 365 * 86_400_000))).toBeDefined();
  });

  it('keeps at most its bytes, letting the least recently used go first', () => {
    const cache = new ProfileCache({ maxBytes: 100 });
    cache.set('a', profile(40));
    cache.set('b', profile(40));
    cache.touch('a');
    cache.set('c', profile(40));
    expect(cache.candidate('b', new Date(AT))).toBeUndefined();
    expect(cache.candidate('a', new Date(AT))).toBeDefined();
    expect(cache.candidate('c', new Date(AT))).toBeDefined();
    expect(cache.keptBytes).toBe(80);
    // Replacing an answer counts its bytes once; one larger than the whole cache is not kept.
    cache.set('c', profile(60));
    expect(cache.keptBytes).toBe(100);
    cache.set('d', profile(101));
    expect(cache.candidate('d', new Date(AT))).toBeUndefined();
    expect(cache.keptBytes).toBe(100);
    cache.clear();
    expect([cache.size, cache.keptBytes]).toEqual([0, 0]);
  });

  it('keeps nothing with no bytes', () => {
    const cache = new ProfileCache({ maxBytes: 0 });
    cache.set('a', profile(1));
    expect(cache.size).toBe(0);
  });
});
