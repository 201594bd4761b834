import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRpc } from '../../src/chain/rpc.js';
import { createIndexer } from '../../src/indexer/indexer.js';
import { sleep } from '../../src/sleep.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address } from '../helpers/factories.js';

/**
 * Every wait of the indexer (a retry's backoff, a loop's pause) listens to its stop signal while it
 * waits, and stops listening when it ends: the listeners on the signal are the waits in progress,
 * never more. Many at once are normal (the RPC calls of a range, or the cores of a chain, all
 * retrying while the endpoint is down), and are not reported as a leak.
 */

/** An endpoint that is down: it resets every connection it accepts. */
async function resettingEndpoint(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the stop signal of the indexer', () => {
  let database: TestDatabase;
  let endpoint: Awaited<ReturnType<typeof resettingEndpoint>>;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(async () => {
    database = await createTestDatabase();
    endpoint = await resettingEndpoint();
    process.on('warning', onWarning);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await endpoint?.close();
    await database?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('keeps no listener of a wait that has ended: two hundred retries and pauses leave none', async () => {
    const controller = new AbortController();
    const rpc = createRpc({ url: endpoint.url, timeoutMs: 1_000, baseBackoffMs: 0, maxBackoffMs: 0, signal: controller.signal });
    let attempts = 0;
    const answer = await rpc.withRetries('flaky', async () => {
      if (++attempts < 200) throw new Error('not yet');
      return 'answered';
    });
    expect(answer).toBe('answered');
    for (let pause = 0; pause < 200; pause++) await sleep(0, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('warns of no listener leak while a chain of twelve cores waits for its endpoint', async () => {
    const cores = 12;
    // Every retry waits the longest its backoff allows, so that all twelve wait at once.
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    let failures = 0;
    const indexer = createIndexer(
      [{ chainId: 8453, rpcUrl: endpoint.url, cores: Array.from({ length: cores }, (_, n) => ({ address: address(0xc100 + n), startBlock: 0n })) }],
      database,
      { confirmations: 0, blockRange: 100, pollMs: 1_000, reorgDepth: 10, rpcTimeoutMs: 1_000, baseBackoffMs: 60_000, maxBackoffMs: 60_000 },
      pino({ level: 'silent' }),
      { onRpcError: () => failures++ },
    );
    const running = indexer.run();
    try {
      // Each core's first call to the endpoint has failed, and its retry waits.
      await vi.waitFor(() => expect(failures).toBe(cores), { timeout: 10_000 });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message)).toEqual([]);
    } finally {
      indexer.stop();
      await running;
    }
  });
});
