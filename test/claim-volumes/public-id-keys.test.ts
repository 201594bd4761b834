import { describe, expect, it } from 'vitest';
import { PublicIdKeys } from '../../src/claim-volumes/public-id-keys.js';

const binaryOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A deterministic pseudo-random generator, so a failure names the IDs it failed on every run. */
function generator(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

function randomId(next: (below: number) => number): string {
  const digits = (count: number) => Array.from({ length: count }, () => String(next(10))).join('');
  // Few chains and addresses, so that ties reach the later parts; chains and identifiers of every
  // length, prefixes of one another included ("10" and "100", "7" and "70...").
  const chain = ['1', '10', '100', '8453', '84532', '42161', '0', '07', '9999999999'][next(9)]!;
  const address = Array.from({ length: 40 }, (_, at) => (at < 38 ? '0' : '0123456789abcdef'[next(16)]!)).join('');
  const identifier = next(4) === 0 ? String(next(3)) : digits(1 + next(78));
  return `${chain}:0x${address}:${identifier}`;
}

describe('PublicIdKeys', () => {
  it('orders IDs as their strings order in binary, and gives each back as it was added', () => {
    const next = generator(7);
    const ids = Array.from({ length: 600 }, () => randomId(next));
    // The longest and shortest identifiers, and the same ID twice.
    ids.push(`1:0x${'f'.repeat(40)}:${'9'.repeat(78)}`, `1:0x${'0'.repeat(40)}:0`, ids[0]!);
    const keys = new PublicIdKeys();
    for (const id of ids) keys.add(id);
    expect(keys.size).toBe(ids.length);
    for (let index = 0; index < ids.length; index++) expect(keys.get(index)).toBe(ids[index]);
    for (let a = 0; a < ids.length; a += 3) {
      for (let b = 0; b < ids.length; b += 5) {
        expect(Math.sign(keys.compare(a, b)), `${ids[a]} against ${ids[b]}`).toBe(binaryOrder(ids[a]!, ids[b]!));
      }
    }
  });

  it('keeps IDs of other forms as strings and orders them with the rest as strings', () => {
    const ids = ['k7', `8453:0x${'A'.repeat(40)}:1`, `8453:0x${'a'.repeat(40)}:1`, '8453:0xcore:12', `84:0x${'0'.repeat(40)}:5`];
    const keys = new PublicIdKeys();
    for (const id of ids) keys.add(id);
    for (let a = 0; a < ids.length; a++) {
      expect(keys.get(a)).toBe(ids[a]);
      for (let b = 0; b < ids.length; b++) expect(Math.sign(keys.compare(a, b))).toBe(binaryOrder(ids[a]!, ids[b]!));
    }
  });

  it('tells the chain an ID names, as its decimal digits read', () => {
    const keys = new PublicIdKeys();
    const base = 8453;
    keys.add(`${base}:0x${'1'.repeat(40)}:3`);
    keys.add(`0${base}:0x${'1'.repeat(40)}:3`);
    keys.add('10:0xcore:3');
    keys.add(`0:0x${'1'.repeat(40)}:3`);
    expect(keys.onChain(0, new Set([1, base]))).toBe(true);
    expect(keys.onChain(0, new Set([845]))).toBe(false);
    // A leading zero names no chain, as no chain ID is written with one.
    expect(keys.onChain(1, new Set([base]))).toBe(false);
    expect(keys.onChain(2, new Set([10]))).toBe(true);
    expect(keys.onChain(3, new Set([0]))).toBe(true);
  });

  it('grows past its first buffer without losing an ID', () => {
    const keys = new PublicIdKeys();
    const ids = Array.from({ length: 5_000 }, (_, index) => `${index % 7}:0x${index.toString(16).padStart(40, '0')}:${index * 7919}`);
    for (const id of ids) keys.add(id);
    expect(ids.every((id, index) => keys.get(index) === id)).toBe(true);
  });
});
