/**
 * A trending entry built once and kept while the rows it was built from are unchanged: everything
 * but the asker's standing and the claim volumes, which every request adds (see entry-texts.ts).
 */
export interface BuiltEntry {
  /** trending_entry_versions()'s version of the campaign's rows when the entry was built. */
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
  /**
   * How long an entry is trusted at most, in milliseconds. Versions are 32-bit transaction IDs, which
   * PostgreSQL reuses after about four billion transactions: bounding an entry's life rules out
   * taking a reused ID for the one the entry was built at.
   */
  maxAgeMs: number;
  now?: () => number;
}

interface Kept {
  entry: BuiltEntry;
  expiresAt: number;
}

/**
 * The built entries of the trending and reward-kit operations, by campaign key: a bounded least-recently-used map.
 * An entry is returned only for the version it was built at, so a changed campaign is built again.
 */
export class EntryCache {
  private readonly kept = new Map<number, Kept>();
  private readonly now: () => number;
  private reused = 0;
  private missed = 0;

  constructor(private readonly options: EntryCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The entry of campaign `key` built at `version`, if kept and not expired. */
  get(key: number, version: string): BuiltEntry | undefined {
    const kept = this.kept.get(key);
    if (kept === undefined) {
      this.missed++;
      return undefined;
    }
    if (kept.entry.version !== version || kept.expiresAt <= this.now()) {
      this.kept.delete(key);
      this.missed++;
      return undefined;
    }
    this.reused++;
    // Most recently used last: a Map iterates in insertion order.
    this.kept.delete(key);
    this.kept.set(key, kept);
    return kept.entry;
  }

  set(key: number, entry: BuiltEntry): void {
    if (this.options.maxEntries === 0) return;
    this.kept.delete(key);
    this.kept.set(key, { entry, expiresAt: this.now() + this.options.maxAgeMs });
    if (this.kept.size > this.options.maxEntries) {
      const oldest = this.kept.keys().next();
      if (!oldest.done) this.kept.delete(oldest.value);
    }
  }

  get size(): number {
    return this.kept.size;
  }

  /** Lookups so far: entries reused, and entries missing or changed (which the caller builds). */
  get lookups(): { reused: number; missed: number } {
    return { reused: this.reused, missed: this.missed };
  }

  /** Forgets every entry (the app's close). */
  clear(): void {
    this.kept.clear();
  }
}
