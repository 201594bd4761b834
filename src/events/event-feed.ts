import type { Logger } from 'pino';
import type { EventPosition, EventsRepository } from '../repositories/events.repository.js';
import { type EventFilter, matches } from './event-filter.js';
import { derivedFrame, type EventFrame, frameOf, refetchFrame } from './frames.js';

/** Where a stream sends its frames; `send` returns false once the stream is gone (closed, or dropped as too slow). */
export interface EventSink {
  send(frame: EventFrame): boolean;
}

export interface EventFeedOptions {
  events: Pick<EventsRepository, 'after' | 'head'>;
  /** How often the feed reads the events committed since its last read. */
  pollMs: number;
  /** How many of the latest events it keeps in memory for streams that resume (older ones are read from the database). */
  keepEvents: number;
  logger: Pick<Logger, 'warn'>;
}

/** How many events one read takes at most. */
const PAGE = 1_000;

interface Subscription {
  filter: EventFilter;
  sink: EventSink;
  /** The last event sent (or skipped by the filter): the stream wants only later ones. */
  last: EventPosition;
  /** While it catches up from the database: the live frames that arrived meanwhile. */
  held: EventFrame[] | undefined;
}

const after = (a: EventPosition, b: EventPosition) => a.seq > b.seq || (a.seq === b.seq && a.id > b.id);

/**
 * One reader of the event log per process, and the streams it feeds: it reads the events committed
 * since its last read every `pollMs` (one query for every stream), turns each into its SSE frame
 * once, and hands it to each stream whose filter takes it. The latest `keepEvents` stay in memory,
 * so that a stream resuming from a recent Last-Event-ID is served from them; an older one reads the
 * events in between from the database first, and one older than the retention gets a refetch event.
 * While no stream is open it reads nothing and keeps nothing.
 */
export class EventFeed {
  private head: EventPosition | undefined;
  /** The latest events, in order; every event after `keptFrom` is in it. */
  private kept: EventFrame[] = [];
  private keptFrom: EventPosition | undefined;
  private readonly subscriptions = new Set<Subscription>();
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private started = false;
  private failing = false;

  constructor(private readonly options: EventFeedOptions) {}

  get streams(): number {
    return this.subscriptions.size;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  async close(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.reading;
    this.subscriptions.clear();
  }

  /**
   * Where a stream opened now starts: every event committed after this call comes after it. Read
   * before the stream's response starts, so that what a client writes once its stream is open is
   * never before the position its stream follows from.
   */
  async position(): Promise<EventPosition> {
    return this.head ?? (await this.readHead());
  }

  /**
   * Adds a stream: from the events after `from` (a Last-Event-ID, or a position()), or from now on.
   * Resolves once the events it missed are sent; returns the function that removes it.
   */
  async subscribe(filter: EventFilter, sink: EventSink, from?: EventPosition): Promise<() => void> {
    const head = this.head ?? (await this.readHead());
    const subscription: Subscription = { filter, sink, last: from ?? head, held: [] };
    this.subscriptions.add(subscription);
    const unsubscribe = () => this.subscriptions.delete(subscription);
    try {
      if (from !== undefined && after(head, from)) await this.catchUp(subscription, from);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    const held = subscription.held ?? [];
    subscription.held = undefined;
    for (const frame of held) this.deliver(subscription, frame);
    return unsubscribe;
  }

  /** Sends a stream what happened after `from`: from memory when it holds all of that, else from the database. */
  private async catchUp(subscription: Subscription, from: EventPosition): Promise<void> {
    if (this.keptFrom !== undefined && !after(this.keptFrom, from)) {
      for (const frame of this.kept) this.deliver(subscription, frame);
      return;
    }
    const { prunedThrough } = await this.options.events.head();
    // Events of transaction `prunedThrough` and before are deleted: a stream that wants some of them
    // must refetch. A position() names a whole transaction as past (id MAX), so it wants none of its.
    if (from.seq < prunedThrough || (from.seq === prunedThrough && from.id !== Number.MAX_SAFE_INTEGER)) {
      // What it missed is no longer kept: it must reread what it shows, then follows from here.
      subscription.sink.send(refetchFrame(`events through ${prunedThrough} are no longer kept (retention 15 minutes)`));
      const head = this.head;
      if (head !== undefined && after(head, subscription.last)) subscription.last = head;
      return;
    }
    for (let position = from; ; ) {
      const page = await this.options.events.after(position, PAGE);
      for (const event of page) this.deliver(subscription, frameOf(event));
      if (page.length < PAGE) return;
      position = page.at(-1)!;
    }
  }

  private deliver(subscription: Subscription, frame: EventFrame): void {
    if (!after(frame.position, subscription.last)) return;
    subscription.last = frame.position;
    if (frame.event === undefined || matches(subscription.filter, frame.event)) {
      if (!subscription.sink.send(frame)) this.subscriptions.delete(subscription);
    }
  }

  private async readHead(): Promise<EventPosition> {
    const { seq } = await this.options.events.head();
    // Every event of transaction `seq` and before is past.
    this.head ??= { seq, id: Number.MAX_SAFE_INTEGER };
    return this.head;
  }

  /** Reads what was committed since the last read and hands it out. */
  private async read(): Promise<void> {
    if (this.subscriptions.size === 0) {
      // No stream to feed: nothing is read or kept, so a process without streams does no event work
      // and holds no events. A stream that opens starts from the head it reads, and one that resumes
      // reads what it missed from the database.
      this.head = undefined;
      this.kept = [];
      this.keptFrom = undefined;
      return;
    }
    const from = this.head ?? (await this.readHead());
    for (let position = from; ; ) {
      const page = await this.options.events.after(position, PAGE);
      for (const event of page) this.publish(frameOf(event));
      if (page.length < PAGE) return;
      position = page.at(-1)!;
    }
  }

  /**
   * Publishes an event this process derived from the data (the trending top), placed right after the
   * last event read: it carries that position with a fraction added, so that it sorts after it and
   * before the next, and a stream resuming from its id resumes after that event. False when it could
   * not be placed (no event read yet since start, or a thousand derived after one event).
   */
  publishDerived(type: string, data: unknown): boolean {
    const head = this.head;
    // Until this process has read an event there is no position to place it after: it waits for one.
    if (head === undefined || head.id === Number.MAX_SAFE_INTEGER) return false;
    const last = this.kept.at(-1)?.position;
    const base = Math.floor(head.id);
    const fraction = last !== undefined && last.seq === head.seq && Math.floor(last.id) === base ? last.id - base + 0.001 : 0.001;
    if (fraction >= 1) return false;
    const position = { seq: head.seq, id: Number((base + fraction).toFixed(3)) };
    this.publish(derivedFrame(position, type, data));
    return true;
  }

  private publish(frame: EventFrame): void {
    // The first event kept follows the head read before it: every event after that head is kept.
    this.keptFrom ??= this.head;
    this.head = frame.position;
    this.kept.push(frame);
    if (this.kept.length > this.options.keepEvents) {
      const dropped = this.kept.splice(0, this.kept.length - this.options.keepEvents);
      this.keptFrom = dropped.at(-1)!.position;
    }
    for (const subscription of this.subscriptions) {
      if (subscription.held) subscription.held.push(frame);
      else this.deliver(subscription, frame);
    }
  }

  private schedule(delayMs: number): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.reading = this.read()
        .then(() => {
          this.failing = false;
        })
        .catch((error: unknown) => {
          if (!this.failing) this.options.logger.warn({ err: error }, 'could not read the event log; streams wait for it');
          this.failing = true;
        })
        .finally(() => {
          this.reading = undefined;
          this.schedule(this.options.pollMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
