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

interface Kept {
  entry: BuiltEntry;
  /** Used since it was kept or last spared: spared once more when its turn to go comes. */
  used: boolean;
}

/**
 * The built entries of the trending and reward-kit operations, by campaign key: a bounded map that
 * lets the least recently used go first, approximately (second chance: the oldest entry goes unless
 * it was used since, which sends it to the back). A hit only marks its entry: moving it to the back
 * of the Map on every hit filled the Map's table with deleted slots, and rebuilding that table every
 * few thousand hits (tens of kilobytes each time, kept by the long-lived Map) was the largest thing
 * the reward-kit list promoted to the old generation.
 * An entry is returned only for the version it was built at, so a changed campaign is built again.
 * Versions come from a sequence and are never given twice (entry_versions), so an entry is trusted
 * for as long as its version is current, however long that is.
 */
export class EntryCache {
  private readonly kept = new Map<number, Kept>();
  private reused = 0;
  private missed = 0;

  constructor(private readonly options: EntryCacheOptions) {}

  /** The entry of campaign `key` built at `version`, if kept. */
  get(key: number, version: string): BuiltEntry | undefined {
    const kept = this.kept.get(key);
    if (kept === undefined) {
      this.missed++;
      return undefined;
    }
    if (kept.entry.version !== version) {
      this.kept.delete(key);
      this.missed++;
      return undefined;
    }
    this.reused++;
    kept.used = true;
    return kept.entry;
  }

  set(key: number, entry: BuiltEntry): void {
    if (this.options.maxEntries === 0) return;
    this.kept.delete(key);
    // Room first, so that the entry being kept is not the one to go. A Map iterates in insertion
    // order: the oldest first. Each entry is spared at most once per round, so this ends.
    while (this.kept.size >= this.options.maxEntries) {
      const [oldestKey, oldest] = this.kept.entries().next().value!;
      this.kept.delete(oldestKey);
      if (oldest.used) {
        oldest.used = false;
        this.kept.set(oldestKey, oldest);
      }
    }
    this.kept.set(key, { entry, used: false });
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
