import { LRUCache } from 'lru-cache';

/**
 * Kept answers by key, bounded by their bytes, the least recently used going first (lru-cache), with
 * the count of lookups that reused one or missed. What makes a kept answer still exact is the
 * subclass's to check (ProfileCache, HistoryCache); a budget of 0 keeps nothing.
 */
export abstract class AnswersByBytes<Kept extends object> {
  protected readonly kept: LRUCache<string, Kept> | undefined;
  private reused = 0;
  private missed = 0;

  constructor(maxBytes: number, bytesOf: (kept: Kept) => number) {
    this.kept = maxBytes > 0 ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (kept) => Math.max(1, bytesOf(kept)) }) : undefined;
  }

  /** False when it keeps nothing: nothing is worth checking then. */
  get keeps(): boolean {
    return this.kept !== undefined;
  }

  /** Counts a lookup: a kept answer was served, or it was missing or changed and built again. */
  counted(result: 'reused' | 'missed'): void {
    if (result === 'reused') this.reused++;
    else this.missed++;
  }

  /** Keeps `answer` under `key`, in place of what was kept there; one larger than the whole budget is not kept. */
  set(key: string, answer: Kept): void {
    this.kept?.set(key, answer);
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

  /** Forgets every answer (the app's close). */
  clear(): void {
    this.kept?.clear();
  }
}
