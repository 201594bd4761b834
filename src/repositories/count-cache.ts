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

export class CountCache {
  private readonly entries = new Map<string, CachedTotal>();

  constructor(private readonly maxEntries = 1000) {}

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
    // Filter combinations are open-ended; the oldest entry makes room (Map keeps insertion order).
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, entry);
  }
}
