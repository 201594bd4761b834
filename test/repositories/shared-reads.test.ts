import { describe, expect, it } from 'vitest';
import { SharedReads } from '../../src/repositories/shared-reads.js';

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
  it('runs a read alone at once, at its own instant', async () => {
    const reads = new SharedReads<string>();
    const { calls, query } = controlledQuery();
    const result = reads.read('page 1', 100, query);
    expect(calls.map((call) => call.at)).toEqual([100]);
    calls[0]!.end('first');
    expect(await result).toBe('first');
    await settle();
    expect(reads.size).toBe(0);
  });

  it('never answers a read with a query that started before it: those arriving meanwhile share the next one', async () => {
    const reads = new SharedReads<string>();
    const { calls, query } = controlledQuery();
    const first = reads.read('page 1', 100, query);
    const second = reads.read('page 1', 105, query);
    const third = reads.read('page 1', 103, query);
    // Only the first is under way; the other two wait for it to end.
    expect(calls).toHaveLength(1);
    calls[0]!.end('as of 100');
    expect(await first).toBe('as of 100');
    await settle();
    // One more query for both, at the later of their instants.
    expect(calls.map((call) => call.at)).toEqual([100, 105]);
    const fourth = reads.read('page 1', 107, query);
    calls[1]!.end('as of 105');
    expect(await second).toBe('as of 105');
    expect(await third).toBe('as of 105');
    await settle();
    // The fourth arrived while the shared query ran: it gets one of its own after it.
    expect(calls.map((call) => call.at)).toEqual([100, 105, 107]);
    calls[2]!.end('as of 107');
    expect(await fourth).toBe('as of 107');
  });

  it('shares nothing between different keys', async () => {
    const reads = new SharedReads<string>();
    const { calls, query } = controlledQuery();
    const one = reads.read('page 1', 100, query);
    const two = reads.read('page 2', 100, query);
    expect(calls).toHaveLength(2);
    calls[0]!.end('page 1');
    calls[1]!.end('page 2');
    expect([await one, await two]).toEqual(['page 1', 'page 2']);
  });

  it('gives a failure to the reads of that query only: those waiting behind it run their own', async () => {
    const reads = new SharedReads<string>();
    const { calls, query } = controlledQuery();
    const failing = reads.read('page 1', 100, query);
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
