/**
 * Identical reads that arrive together share one query, and no read is ever answered by a query that
 * started before it arrived. A read that finds an identical query under way waits for it to end and
 * shares the next one, which starts as soon as it ends and serves every identical read that arrived
 * meanwhile. What each sharer gets was committed before that query started, so after the sharer
 * arrived: as exact as a query of its own. A read that finds none under way starts one at the end of
 * the event loop's turn, shared with the identical reads of the same turn.
 *
 * Why: under load most requests are the same few (the first page of /campaigns). Sharing turns one
 * statement per request into one per round trip for those, which is what a transaction pooler
 * (PgBouncer) charges for: each statement it passes costs its process CPU and two more wake-ups, and
 * is planned again on the server (no named statement outlives a transaction there).
 *
 * The shared query runs at the latest instant (`at`, epoch ms) of the reads it serves: every one of
 * them had arrived by then, so that instant lies within each one's lifetime.
 */
export class SharedReads<T> {
  private readonly byKey = new Map<string, SharedRead<T>>();

  /** The result of `query(at')` for a query started after this call, shared with identical reads (same `key`). */
  read(key: string, at: number, query: (at: number) => Promise<T>): Promise<T> {
    let shared = this.byKey.get(key);
    if (shared === undefined) {
      shared = { running: undefined, next: undefined };
      this.byKey.set(key, shared);
    }
    if (shared.next !== undefined) {
      shared.next.at = Math.max(shared.next.at, at);
      return shared.next.result;
    }
    const entry = shared;
    const next: Pending<T> = { at, result: undefined as unknown as Promise<T> };
    const begin = () => {
      entry.next = undefined;
      return this.start(key, entry, next.at, query);
    };
    // With none under way, the query starts once the reads of this turn of the event loop have come
    // in (setImmediate runs after them): requests that arrive together, or that one claim-feed poll
    // resumes together, share it instead of the first running alone and the rest after it.
    next.result =
      shared.running === undefined
        ? new Promise<void>((resolve) => setImmediate(resolve)).then(begin)
        : shared.running.catch(() => undefined).then(begin);
    shared.next = next;
    return next.result;
  }

  /** Keys with a query under way or waiting (for tests and metrics). */
  get size(): number {
    return this.byKey.size;
  }

  private start(key: string, shared: SharedRead<T>, at: number, query: (at: number) => Promise<T>): Promise<T> {
    const running = query(at).finally(() => {
      if (shared.running === running) shared.running = undefined;
      // Nobody left waiting on this key: forget it, so the map holds only keys being read now.
      if (shared.running === undefined && shared.next === undefined && this.byKey.get(key) === shared) this.byKey.delete(key);
    });
    shared.running = running;
    return running;
  }
}

interface SharedRead<T> {
  /** The query under way, if any. */
  running: Promise<T> | undefined;
  /** The query that starts when `running` ends, with the reads that arrived while it ran. */
  next: Pending<T> | undefined;
}

interface Pending<T> {
  /** The latest instant of the reads waiting for it. */
  at: number;
  result: Promise<T>;
}
