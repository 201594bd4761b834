import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';

/** A token's projection apart from the request's instant, which `exhaustsAt` counts from. */
export interface ProjectionPart {
  token: string;
  left: string;
  paidPerDay: string;
  /** Milliseconds from now until the budget runs out at that rate; null when it does not. */
  runsForMs: number | null;
}

/**
 * A campaign history as answered, apart from its projection's instants: kept with the version of
 * what it was built from (the history repository's `version`), and served again only while that
 * version is current, so a kept answer is byte for byte what building it again would give.
 */
export interface KeptHistory {
  version: string;
  /** The answer's JSON up to its projection: `{"campaignId":…,"buckets":[…],"projection":`, as UTF-8. */
  head: Buffer;
  projection: ProjectionPart[];
  /** The whole answer last sent, its ETag, and the second its projection counts from: the answer for every request in that second. */
  answered?: { second: number; body: Buffer; etag: string };
}

export interface HistoryCacheOptions {
  /** The most bytes of kept answers (each counted twice: its head and its last whole answer); the least recently used go first. 0 keeps none. */
  maxBytes: number;
}

/**
 * Kept campaign histories by campaign and window, bounded by the bytes of their answers (lru-cache).
 * A busy campaign's month by hour is hundreds of buckets, asked for by every frontend showing it;
 * between two of its claims the answer is the same, and checking that costs one index lookup.
 */
export class HistoryCache {
  private readonly kept: LRUCache<string, KeptHistory> | undefined;
  private reused = 0;
  private missed = 0;

  constructor(options: HistoryCacheOptions) {
    this.kept = options.maxBytes > 0 ? new LRUCache({ maxSize: options.maxBytes, sizeCalculation: (kept) => Math.max(1, 2 * kept.head.length) }) : undefined;
  }

  /** False when it keeps nothing (a budget of 0): no version is worth reading then. */
  get keeps(): boolean {
    return this.kept !== undefined;
  }

  /** The history kept under `key` if it was built at `version`; counts the lookup either way. */
  get(key: string, version: string | null): KeptHistory | undefined {
    const kept = version === null ? undefined : this.kept?.get(key);
    if (kept === undefined || kept.version !== version) {
      this.missed++;
      return undefined;
    }
    this.reused++;
    return kept;
  }

  /** Keeps `history` under `key`, in place of what was kept there; one larger than the whole budget is not kept. */
  set(key: string, history: KeptHistory): void {
    this.kept?.set(key, history);
  }

  get size(): number {
    return this.kept?.size ?? 0;
  }

  get keptBytes(): number {
    return this.kept?.calculatedSize ?? 0;
  }

  /** Lookups so far: answers reused, and answers missing or changed (which the caller builds). */
  get lookups(): { reused: number; missed: number } {
    return { reused: this.reused, missed: this.missed };
  }

  /** Forgets every history (the app's close). */
  clear(): void {
    this.kept?.clear();
  }
}

/** The cache as the app keeps it: HISTORY_CACHE_MAX_MB of answers at most. */
export function createHistoryCache(config: Pick<Config, 'HISTORY_CACHE_MAX_MB'>): HistoryCache {
  return new HistoryCache({ maxBytes: config.HISTORY_CACHE_MAX_MB * 1024 * 1024 });
}
