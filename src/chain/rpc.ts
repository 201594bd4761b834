import {
  type Block,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  createPublicClient,
  ExecutionRevertedError,
  http,
  type PublicClient,
} from 'viem';

/**
 * The JSON-RPC client the indexer reads a chain with: viem over HTTP with JSON-RPC batching (the
 * view calls of one block range go out in few requests), no retries of viem's own, and
 * `withRetries` around every call: timeouts, rate limits (429), 5xx and RPC errors are retried with
 * exponential backoff and full jitter for as long as the caller lets it (the indexer keeps running
 * while its endpoint is down). A contract that reverts is an answer, not a fault: it is not retried.
 */

export interface RpcOptions {
  url: string;
  /** Time one request may take. */
  timeoutMs: number;
  /** First retry delay; doubles each attempt up to `maxBackoffMs`, each delay drawn at random below it. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Called for every failed attempt (metrics, throttled logs). */
  onError?: (error: unknown, attempt: number, label: string) => void;
  signal?: AbortSignal;
}

export interface Rpc {
  client: PublicClient;
  /** Runs `call` until it succeeds, a contract reverts, or the signal aborts. */
  withRetries<T>(label: string, call: () => Promise<T>, options?: { isFinal?: (error: unknown) => boolean }): Promise<T>;
  getBlock(number: bigint): Promise<Block>;
}

export class AbortedError extends Error {
  constructor() {
    super('stopped');
  }
}

export function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(
    error.walk(
      (cause) =>
        cause instanceof ContractFunctionRevertedError ||
        cause instanceof ContractFunctionZeroDataError ||
        cause instanceof ExecutionRevertedError,
    ),
  );
}

export function createRpc(options: RpcOptions): Rpc {
  const client = createPublicClient({
    transport: http(options.url, {
      timeout: options.timeoutMs,
      retryCount: 0,
      batch: { batchSize: 200, wait: 0 },
      // A busy range's logs exceed viem's default limit; a larger answer is split (src/chain/logs.ts),
      // but only after it was downloaded, so the limit is set where a refused range is rare.
      maxResponseBodySize: 128 * 1024 * 1024,
    }),
  }) as PublicClient;
  const sleep = (ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (options.signal?.aborted) return reject(new AbortedError());
      const timer = setTimeout(() => {
        options.signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new AbortedError());
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  const withRetries: Rpc['withRetries'] = async (label, call, { isFinal } = {}) => {
    for (let attempt = 1; ; attempt++) {
      if (options.signal?.aborted) throw new AbortedError();
      try {
        return await call();
      } catch (error) {
        if (isRevert(error) || isFinal?.(error)) throw error;
        options.onError?.(error, attempt, label);
        const ceiling = Math.min(options.maxBackoffMs, options.baseBackoffMs * 2 ** Math.min(attempt - 1, 20));
        await sleep(Math.random() * ceiling);
      }
    }
  };
  return {
    client,
    withRetries,
    getBlock: (number) => withRetries(`eth_getBlockByNumber ${number}`, () => client.getBlock({ blockNumber: number })),
  };
}
