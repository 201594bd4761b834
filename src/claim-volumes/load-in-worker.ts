import { startModuleWorker } from '../module-worker.js';
import type { DatabaseSettings } from '../db/client.js';
import type { ClaimLoadRequest, LoadFailure, WorkerMessage } from './load-worker.js';
import type { ClaimLoader } from './repository.js';

/** The database a worker connects to on its own: the URL the reads go to and the pool's settings. */
export interface WorkerConnection {
  url: string;
  settings: DatabaseSettings;
}

/**
 * A claim loader that reads on a worker thread (load-worker.ts) and applies each chunk here
 * as it arrives. The server's heap then only sees the claims as typed arrays: the load's garbage
 * (the rows' texts, parsed arrays, driver buffers) stays in the worker's heap and goes with it,
 * where on this thread it sat in the old generation until a full collection and raised the RSS at
 * readiness (docs/performance.md).
 */
export function loadInWorker(connection: WorkerConnection): ClaimLoader {
  return (from, timeoutMs, onChunk, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new Error(ABANDONED));
      const request: ClaimLoadRequest = { ...connection, fromMs: from.getTime(), timeoutMs };
      const worker = startModuleWorker(import.meta.url, 'load-worker', request);
      let settled = false;
      const settle = (error: Error | undefined, loaded?: Parameters<typeof resolve>[0]) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', abandon);
        if (error) {
          void worker.terminate();
          reject(error);
        } else {
          // The worker ends itself once it has closed its connection.
          resolve(loaded!);
        }
      };
      const abandon = () => settle(new Error(ABANDONED));
      signal?.addEventListener('abort', abandon, { once: true });

      worker.on('message', (message: WorkerMessage) => {
        if ('chunk' in message) {
          Promise.resolve()
            .then(() => onChunk(message.chunk))
            .then(
              () => {
                if (!settled) worker.postMessage('next');
              },
              (error: Error) => settle(error),
            );
        } else if ('done' in message) {
          settle(undefined, message.done);
        } else {
          settle(toError(message.error));
        }
      });
      worker.on('error', (error) => settle(error));
      worker.on('exit', (code) => settle(new Error(`the claim load's worker thread stopped before it finished (exit code ${code})`)));
    });
}

const ABANDONED = 'claim load abandoned';

/** The worker's error as an Error again, with the SQLSTATE or system code the error handler classifies by, causes included. */
function toError({ name, message, code, cause }: LoadFailure): Error {
  const error = new Error(message, cause && { cause: toError(cause) }) as Error & { code?: string };
  error.name = name;
  if (code !== undefined) error.code = code;
  return error;
}
