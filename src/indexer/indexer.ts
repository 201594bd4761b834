import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { AbortedError, createRpc, type Rpc } from '../chain/rpc.js';
import type { DatabaseHandle } from '../db/client.js';
import { sleep } from '../sleep.js';
import { StaleBasisError } from './basis.js';
import { CoreIndexer, type CoreIndexerOptions, type Progress, ReorgTooDeepError } from './core-indexer.js';
import type { ChainTarget } from '../chain/targets.js';
import type { AllowListEditSource } from '../chain/allow-list-calls.js';

/**
 * Runs one CoreIndexer per chain and core, each in its own loop: a range at a time while behind,
 * a poll every `pollMs` once caught up; with `once`, each loop ends when it has caught up (the
 * head minus the confirmations). RPC faults are retried inside the calls (the loop waits while the
 * endpoint is down); any other failure of a range is logged and the range retried after a pause,
 * except a reorganisation deeper than remembered, which stops the indexer, and a range whose stored
 * campaigns or allow lists an import changed while it was read (StaleBasisError), built again at once.
 */

export interface IndexerSettings {
  confirmations: number;
  blockRange: number;
  pollMs: number;
  reorgDepth: number;
  rpcTimeoutMs: number;
  /** How allow-list edits are found (INDEXER_ALLOW_LIST_EDITS); default transactions. */
  allowListEdits?: AllowListEditSource;
  /** Backoff of RPC retries. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface IndexerHooks {
  onProgress?: (progress: Progress) => void;
  onRpcError?: (chainId: number, error: unknown) => void;
  /** Before a range with claims is written (CoreIndexerOptions.beforeClaims). */
  beforeClaims?: CoreIndexerOptions['beforeClaims'];
}

export interface Indexer {
  /** Resolves when every loop has ended: caught up with `once`, or stopped. */
  run(options?: { once?: boolean }): Promise<void>;
  stop(): void;
}

export function createIndexer(targets: ChainTarget[], database: DatabaseHandle, settings: IndexerSettings, logger: Logger, hooks: IndexerHooks = {}): Indexer {
  const controller = new AbortController();
  // Each wait of the loops and of their RPC calls' retries listens to this signal while it waits and
  // stops listening when it ends (test/indexer/abort-listeners.test.ts): more than Node's ten at once
  // are the calls of a range, or the cores of a chain, all retrying while the endpoint is down, not
  // a leak; their number is that of the calls in flight, so no limit is set.
  setMaxListeners(0, controller.signal);
  const lastLogged = new Map<string, number>();
  /** One log line per chain and kind of fault every 10 s: a dead endpoint must not flood the log. */
  const throttled = (key: string, log: () => void) => {
    const now = Date.now();
    if (now - (lastLogged.get(key) ?? 0) < 10_000) return;
    lastLogged.set(key, now);
    log();
  };
  const pause = (ms: number) => sleep(ms, controller.signal);

  const loops = coreLoops(targets, database, settings, logger, hooks, controller.signal, throttled);

  const verifyChain = async (rpc: Rpc, chainId: number) => {
    const actual = await rpc.withRetries('eth_chainId', () => rpc.client.getChainId());
    if (actual !== chainId) throw new Error(`the RPC endpoint for chain ${chainId} serves chain ${actual}`);
  };

  const loop = async ({ indexer, rpc, chainId }: (typeof loops)[number], once: boolean) => {
    try {
      await verifyChain(rpc, chainId);
    } catch (error) {
      if (error instanceof AbortedError) return;
      throw error;
    }
    let failures = 0;
    let stale = 0;
    while (!controller.signal.aborted) {
      try {
        const result = await indexer.step();
        failures = 0;
        stale = 0;
        if (result === 'caught-up') {
          if (once) return;
          await pause(settings.pollMs);
        }
      } catch (error) {
        if (error instanceof AbortedError || controller.signal.aborted) return;
        if (error instanceof ReorgTooDeepError) throw error;
        if (error instanceof StaleBasisError) {
          // Not a fault: an import won a race, and nothing was written. Build the range again at once;
          // only when imports keep winning, pause a little between attempts.
          stale++;
          logger.warn({ chainId, core: indexer.id.core, attempt: stale, reason: error.message }, 'a block range is built again after an import');
          if (stale > 1) await pause(Math.min(5_000, 50 * 2 ** Math.min(stale, 7)) * Math.random());
          continue;
        }
        failures++;
        throttled(`step:${chainId}:${indexer.id.core}`, () =>
          logger.error({ chainId, core: indexer.id.core, err: error }, 'indexing a block range failed; retrying'),
        );
        await pause(Math.min(30_000, 250 * 2 ** Math.min(failures, 7)) * Math.random());
      }
    }
  };

  return {
    run: async ({ once = false } = {}) => {
      const results = await Promise.allSettled(loops.map((entry) => loop(entry, once)));
      const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) {
        controller.abort();
        throw failed.reason;
      }
    },
    stop: () => controller.abort(),
  };
}

/** One loop per core of each target: its indexer and its chain's RPC (one per chain, shared by its cores). */
function coreLoops(
  targets: ChainTarget[],
  database: DatabaseHandle,
  settings: IndexerSettings,
  logger: Logger,
  hooks: IndexerHooks,
  signal: AbortSignal,
  throttled: (key: string, log: () => void) => void,
): { indexer: CoreIndexer; rpc: Rpc; chainId: number }[] {
  const loops: { indexer: CoreIndexer; rpc: Rpc; chainId: number }[] = [];
  for (const target of targets) {
    const rpc = createRpc({
      url: target.rpcUrl,
      timeoutMs: settings.rpcTimeoutMs,
      baseBackoffMs: settings.baseBackoffMs ?? 250,
      maxBackoffMs: settings.maxBackoffMs ?? 30_000,
      signal,
      onError: (error, attempt, label) => {
        hooks.onRpcError?.(target.chainId, error);
        throttled(`rpc:${target.chainId}`, () =>
          logger.warn({ chainId: target.chainId, call: label, attempt, err: (error as Error).message.split('\n')[0] }, 'RPC call failed; retrying'),
        );
      },
    });
    for (const core of target.cores) {
      const indexer = new CoreIndexer({
        chainId: target.chainId,
        core: core.address,
        startBlock: core.startBlock,
        confirmations: settings.confirmations,
        blockRange: settings.blockRange,
        reorgDepth: settings.reorgDepth,
        allowListEdits: settings.allowListEdits ?? 'transactions',
        rpc,
        database,
        logger,
        onProgress: hooks.onProgress,
        beforeClaims: hooks.beforeClaims,
      });
      loops.push({ indexer, rpc, chainId: target.chainId });
    }
  }

  return loops;
}
