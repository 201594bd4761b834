import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';

/**
 * A trending entry built once and kept while the rows it was built from are unchanged: everything
 * but the asker's standing and the claim volumes, which every request adds (see entry-texts.ts).
 */
export interface BuiltEntry {
  /** trending_entry_versions()'s version of the campaign's entry when it was built. */
  version: string;
  /** The entry's JSON object without its closing brace, as UTF-8: the per-request fields follow. */
  head: Buffer;
  /** `actionTokenMetadata` as JSON, for swap campaigns (shown with `includeTokenMetadata`). */
  tokenMetadata: string | undefined;
  allowListType: string | null;
  verificationLevel: string | null;
  /** Each incentive's `rewardUsdValue`, by incentive ID. */
  rewardUsd: number[];
}

export interface EntryCacheOptions {
  /** The most entries kept; the least recently used go first. 0 keeps none. */
  maxEntries: number;
}

/**
 * The built entries of the trending and reward-kit operations, by campaign key, the least recently
 * used going first (lru-cache: a hit moves its entry in typed arrays, not in a Map, so the long-lived
 * cache makes no garbage per hit). An entry is returned only for the version it was built at, so a
 * changed campaign is built again. Versions come from a sequence and are never given twice
 * (entry_versions), so an entry is trusted for as long as its version is current, however long that is.
 */
export class EntryCache {
  private readonly kept: LRUCache<number, BuiltEntry> | undefined;
  private reused = 0;
  private missed = 0;

  constructor(options: EntryCacheOptions) {
    this.kept = options.maxEntries > 0 ? new LRUCache({ max: options.maxEntries }) : undefined;
  }

  /** The entry of campaign `key` built at `version`, if kept. */
  get(key: number, version: string): BuiltEntry | undefined {
    const entry = this.kept?.get(key);
    if (entry?.version !== version) {
      if (entry !== undefined) this.kept!.delete(key);
      this.missed++;
      return undefined;
    }
    this.reused++;
    return entry;
  }

  set(key: number, entry: BuiltEntry): void {
    this.kept?.set(key, entry);
  }

  get size(): number {
    return this.kept?.size ?? 0;
  }

  /** Lookups so far: entries reused, and entries missing or changed (which the caller builds). */
  get lookups(): { reused: number; missed: number } {
    return { reused: this.reused, missed: this.missed };
  }

  /** Forgets every entry (the app's close). */
  clear(): void {
    this.kept?.clear();
  }
}

/** The cache as the app keeps it: ENTRY_CACHE_SIZE entries at most. */
export function createEntryCache(config: Pick<Config, 'ENTRY_CACHE_SIZE'>): EntryCache {
  return new EntryCache({ maxEntries: config.ENTRY_CACHE_SIZE });
}
