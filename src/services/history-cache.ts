import type { Config } from '../config.js';
import { AnswersByBytes } from './answers-by-bytes.js';

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
export class HistoryCache extends AnswersByBytes<KeptHistory> {
  constructor(options: HistoryCacheOptions) {
    super(options.maxBytes, (kept) => 2 * kept.head.length);
  }

  /** The history kept under `key` if it was built at `version`; counts the lookup either way. */
  get(key: string, version: string | null): KeptHistory | undefined {
    const kept = version === null ? undefined : this.kept?.get(key);
    if (kept === undefined || kept.version !== version) {
      this.counted('missed');
      return undefined;
    }
    this.counted('reused');
    return kept;
  }
}

/** The cache as the app keeps it: HISTORY_CACHE_MAX_MB of answers at most. */
export function createHistoryCache(config: Pick<Config, 'HISTORY_CACHE_MAX_MB'>): HistoryCache {
  return new HistoryCache({ maxBytes: config.HISTORY_CACHE_MAX_MB * 1024 * 1024 });
}
