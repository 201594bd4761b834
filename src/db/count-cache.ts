import { LRUCache } from 'lru-cache';

/**
 * Totals of filtered lists, kept while they cannot have changed: the database's
 * `campaign_set_version` is unchanged and, for filters that depend on the clock (active campaigns),
 * no campaign has started or ended since. A hit is exact, not approximate; a full table count per
 * request is what this saves.
 */
export interface CachedTotal {
  total: number;
  version: string;
  /** For clock-dependent totals: the instant counted at, and the next instant a campaign starts or ends. */
  validFrom: Date | null;
  validUntil: Date | null;
}

/** At most `maxEntries` totals (filter combinations are open-ended), the least recently used going first. */
export class CountCache {
  private readonly entries: LRUCache<string, CachedTotal>;

  constructor(maxEntries = 1000) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get(key: string, version: string, now: Date): number | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const outOfWindow =
      (entry.validFrom !== null && now < entry.validFrom) || (entry.validUntil !== null && now >= entry.validUntil);
    if (entry.version !== version || outOfWindow) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.total;
  }

  set(key: string, entry: CachedTotal): void {
    this.entries.set(key, entry);
  }
}
