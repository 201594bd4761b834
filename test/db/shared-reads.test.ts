import { describe, expect, it } from 'vitest';
import { SharedReads } from '../../src/db/shared-reads.js';

/** A query whose calls stay under way until the test ends them, in the order they started. */
function controlledQuery() {
  const calls: { at: number; end: (value: string) => void; fail: (error: Error) => void }[] = [];
  const query = (at: number) =>
    new Promise<string>((resolve, reject) => {
      calls.push({ at, end: resolve, fail: reject });
    });
  return { calls, query };
}

/** Lets the promise chains of ended queries run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('shared reads', () => {
  it('runs a read alone at the end of its turn of the event loop, at its own instant', async () => {
    const reads = new SharedReads<string>();
    const { calls, query } = controlledQuery();
    const result = reads.read('page 1', 100, query);
    await settle();
    expect(calls.map((call) => call.at)).toEqual([100]);
    calls[0]!.end('first');
    expect(await result).toBe('first');
    await settle();
    expect(reads.size).toBe(0);
  });

  it('shares one query between the reads of one turn, and never answers a read with a query that started before it', async () => {
    const reads = new SharedReads<string>();
    const { calls, query } = controlledQuery();
    // Three reads in one turn: one query, at the latest of their instants.
    const together = [reads.read('page 1', 100, query), reads.read('page 1', 105, query), reads.read('page 1', 103, query)];
    await settle();
    expect(calls.map((call) => call.at)).toEqual([105]);
    // Two more while it runs: they wait for it to end, then share the next one.
    const later = [reads.read('page 1', 107, query), reads.read('page 1', 106, query)];
    await settle();
    expect(calls).toHaveLength(1);
    calls[0]!.end('as of 105');
    expect(await Promise.all(together)).toEqual(['as of 105', 'as of 105', 'as of 105']);
    await settle();
    expect(calls.map((call) => call.at)).toEqual([105, 107]);
    // One more while that one runs: a query of its own after it.
    const last = reads.read('page 1', 108, query);
    calls[1]!.end('as of 107');
    expect(await Promise.all(later)).toEqual(['as of 107', 'as of 107']);
    await settle();
    expect(calls.map((call) => call.at)).toEqual([105, 107, 108]);
    calls[2]!.end('as of 108');
    expect(await last).toBe('as of 108');
  });

  it('shares nothing between different keys', async () => {
    const reads = new SharedReads<string>();
    const { calls, query } = controlledQuery();
    const one = reads.read('page 1', 100, query);
    const two = reads.read('page 2', 100, query);
    await settle();
    expect(calls).toHaveLength(2);
    calls[0]!.end('page 1');
    calls[1]!.end('page 2');
    expect([await one, await two]).toEqual(['page 1', 'page 2']);
  });

  it('gives a failure to the reads of that query only: those waiting behind it run their own', async () => {
    const reads = new SharedReads<string>();
    const { calls, query } = controlledQuery();
    const failing = reads.read('page 1', 100, query);
    await settle();
    const waiting = reads.read('page 1', 101, query);
    calls[0]!.fail(new Error('canceling statement due to statement timeout'));
    await expect(failing).rejects.toThrow('statement timeout');
    await settle();
    expect(calls).toHaveLength(2);
    calls[1]!.end('as of 101');
    expect(await waiting).toBe('as of 101');
    await settle();
    expect(reads.size).toBe(0);
  });
});
