import { once } from 'node:events';
import { startModuleWorker } from '../src/module-worker.js';

/**
 * Writes claims the way a chain indexer does while the benchmark drives the API: single-claim
 * transactions at a steady rate, each claim of a random incentive, made now. It reports how many it
 * wrote, how many failed, and what one insert cost (latency of the INSERT and its commit).
 *
 * The writing runs on a worker thread (claim-writer-worker.ts), so that it never holds up the load
 * generator's event loop: the latency measured is the service's.
 */
export interface ClaimWriterReport {
  inserted: number;
  errors: number;
  meanMs: number;
  p99Ms: number;
}

export interface ClaimWriter {
  stop(): Promise<ClaimWriterReport>;
}

export async function startClaimWriter(url: string, ratePerSecond: number): Promise<ClaimWriter> {
  const worker = startModuleWorker(import.meta.url, 'claim-writer-worker', { url, ratePerSecond });
  const failed = once(worker, 'error').then(([error]) => Promise.reject(error as Error));
  failed.catch(() => undefined);
  const [started] = (await Promise.race([once(worker, 'message'), failed])) as [unknown];
  if (started !== 'started') throw new Error(`the claim writer did not start: ${String(started)}`);
  return {
    async stop() {
      worker.postMessage('stop');
      const [report] = (await Promise.race([once(worker, 'message'), failed])) as [ClaimWriterReport];
      await worker.terminate();
      return report;
    },
  };
}
