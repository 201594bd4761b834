import { parentPort, workerData } from 'node:worker_threads';
import { drizzle } from 'drizzle-orm/node-postgres';
import { createPool, type DatabaseSettings } from '../db/client.js';
import * as schema from '../db/schema.js';
import { type ClaimChunk, createClaimWindowsRepository } from './repository.js';

/**
 * A worker thread's whole life: one claim load (the repository's `load`) on a connection of its
 * own, each chunk handed to the parent as typed arrays it takes over (transferred, not copied).
 * The rows' texts, the parsed arrays and the driver's buffers (hundreds of megabytes of garbage
 * over a week of a million claims) live and die in this thread's heap, which ends with it.
 *
 * Messages to the parent: `{ chunk }` (then the worker waits for `'next'`, reading the next chunk
 * from the database meanwhile), `{ done }` with the load's position, or `{ error }`.
 */
export interface ClaimLoadRequest {
  url: string;
  settings: DatabaseSettings;
  fromMs: number;
  timeoutMs: number;
}

/** A chunk as the worker sends it: its columns as typed arrays over buffers the parent takes over. */
export interface TransferredChunk {
  campaigns: { keys: Int32Array<ArrayBuffer>; public_ids: string[] };
  claimants: string[];
  claims: {
    campaign_keys: Int32Array<ArrayBuffer>;
    claimed_at_us: Float64Array<ArrayBuffer>;
    usd_micros: Float64Array<ArrayBuffer>;
    signs: Int8Array<ArrayBuffer>;
    claimant_indexes: Int32Array<ArrayBuffer>;
  };
  perMinute?: { starts_us: Float64Array<ArrayBuffer>; counts: Int32Array<ArrayBuffer>; campaigns: number };
}

/**
 * A failure as the worker reports it: what the error handler classifies errors by, down the cause
 * chain (Drizzle wraps the driver's error, whose code or message says the database went away).
 */
export interface LoadFailure {
  name: string;
  message: string;
  code?: string;
  cause?: LoadFailure;
}

function toFailure(error: unknown, depth = 0): LoadFailure {
  const { name, message, code, cause } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
  return {
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : String(error),
    ...(typeof code === 'string' ? { code } : {}),
    ...(cause !== undefined && depth < 4 ? { cause: toFailure(cause, depth + 1) } : {}),
  };
}

export type WorkerMessage = { chunk: TransferredChunk } | { done: { position: { snapshot: string; atMs: number }; version: string } } | { error: LoadFailure };

const port = parentPort!;
const { url, settings, fromMs, timeoutMs } = workerData as ClaimLoadRequest;

/** Resolves when the parent has taken the last chunk: at most one chunk waits in its queue. */
let taken: Promise<void> = Promise.resolve();
const nextTaken = () =>
  new Promise<void>((resolve) => {
    port.once('message', () => resolve());
  });

async function send(chunk: ClaimChunk): Promise<void> {
  const transferred: TransferredChunk = {
    campaigns: { keys: Int32Array.from(chunk.campaigns.keys), public_ids: chunk.campaigns.public_ids },
    claimants: chunk.claimants,
    claims: {
      campaign_keys: Int32Array.from(chunk.claims.campaign_keys),
      claimed_at_us: Float64Array.from(chunk.claims.claimed_at_us),
      usd_micros: Float64Array.from(chunk.claims.usd_micros),
      signs: Int8Array.from(chunk.claims.signs),
      claimant_indexes: Int32Array.from(chunk.claims.claimant_indexes),
    },
    ...(chunk.perMinute && {
      perMinute: {
        starts_us: Float64Array.from(chunk.perMinute.starts_us),
        counts: Int32Array.from(chunk.perMinute.counts),
        campaigns: chunk.perMinute.campaigns,
      },
    }),
  };
  await taken;
  taken = nextTaken();
  port.postMessage({ chunk: transferred } satisfies WorkerMessage, [
    transferred.campaigns.keys.buffer,
    transferred.claims.campaign_keys.buffer,
    transferred.claims.claimed_at_us.buffer,
    transferred.claims.usd_micros.buffer,
    transferred.claims.signs.buffer,
    transferred.claims.claimant_indexes.buffer,
    ...(transferred.perMinute ? [transferred.perMinute.starts_us.buffer, transferred.perMinute.counts.buffer] : []),
  ]);
}

const pool = createPool(url, { ...settings, DB_POOL_MAX: 1 });
try {
  const repository = createClaimWindowsRepository(drizzle({ client: pool, schema }));
  const done = await repository.load(new Date(fromMs), timeoutMs, send);
  await taken;
  port.postMessage({ done } satisfies WorkerMessage);
} catch (error) {
  port.postMessage({ error: toFailure(error) } satisfies WorkerMessage);
} finally {
  await pool.end().catch(() => undefined);
}
