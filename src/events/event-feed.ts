import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Poller } from '../poller.js';
import type { EventPosition, EventsRepository } from '../repositories/events.repository.js';
import { type EventFilter, matches } from './event-filter.js';
import { derivedFrame, type EventFrame, eventId, frameOf, refetchFrame, WHOLE_TRANSACTION } from './frames.js';

/**
 * Where a stream sends its frames. `send` writes one and says whether the client takes more now;
 * when it does not, the feed sends nothing more until `drained()` resolves (false: the stream is gone).
 */
export interface EventSink {
  send(frame: EventFrame): boolean;
  drained(): Promise<boolean>;
  /** Ends the stream; its client resumes with its Last-Event-ID. */
  close(): void;
}

/** Why a stream was told to refetch: what it asked for is no longer kept, or was never written. */
export type RefetchReason = 'pruned' | 'ahead';

export interface EventFeedOptions {
  events: Pick<EventsRepository, 'after' | 'head'>;
  /** How often the feed reads the events committed since its last read. */
  pollMs: number;
  /** How many of the latest events it keeps in memory for streams that resume (older ones are read from the database). */
  keepEvents: number;
  logger: Pick<Logger, 'warn'>;
}

/** How many events the feed's read of the log takes at most. */
const PAGE = 1_000;
/** How many a stream that catches up from the log reads at a time: all it holds while it sends them. */
const CATCH_UP_PAGE = 200;

interface Subscription {
  filter: EventFilter;
  sink: EventSink;
  /** The last event sent (or skipped by the filter): the stream wants only later ones. */
  last: EventPosition;
  /** The feed hands it each event as it is read; otherwise it catches up at its client's pace. */
  live: boolean;
  /** Its client has not read what was sent: nothing more until the sink drains. */
  full: boolean;
  gone: boolean;
}

const after = (a: EventPosition, b: EventPosition) => a.seq > b.seq || (a.seq === b.seq && a.id > b.id);

/**
 * One reader of the event log per process, and the streams it feeds: it reads the events committed
 * since its last read every `pollMs` (one query for every stream), turns each into its SSE frame
 * once, and hands it to each stream whose filter takes it. The latest `keepEvents` stay in memory.
 *
 * A stream is written only as fast as its client reads: when its client has not read what was
 * sent, the stream drops out of the live hand-out and catches up by itself once the client has
 * read it, from memory while memory still holds the events after its last one, else from the log
 * in pages. What waits for a slow client is a position, not a copy of the events. A stream whose
 * position is older than the log's retention (or was never written to this log) gets a refetch
 * event and follows from the head. While no stream is open the feed reads nothing and keeps nothing.
 */
export class EventFeed {
  private head: EventPosition | undefined;
  /** The latest events, in order; every event after `keptFrom` is in it. */
  private kept: EventFrame[] = [];
  private keptFrom: EventPosition | undefined;
  private readonly subscriptions = new Set<Subscription>();
  private readonly poller: Poller;
  private readonly refetches: Record<RefetchReason, number> = { pruned: 0, ahead: 0 };

  constructor(private readonly options: EventFeedOptions) {
    this.poller = new Poller({
      round: () => this.read(),
      pause: () => options.pollMs,
      // Logged once per outage: streams wait for the log meanwhile.
      onError: (error, again) => {
        if (!again) options.logger.warn({ err: error }, 'could not read the event log; streams wait for it');
      },
    });
  }

  get streams(): number {
    return this.subscriptions.size;
  }

  /** Refetch events sent since start, by reason. */
  get refetched(): Readonly<Record<RefetchReason, number>> {
    return { ...this.refetches };
  }

  start(): void {
    this.poller.start();
  }

  async close(): Promise<void> {
    await this.poller.close();
    for (const subscription of this.subscriptions) subscription.gone = true;
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
   * The events it missed follow at its client's pace; returns the function that removes it.
   */
  async subscribe(filter: EventFilter, sink: EventSink, from?: EventPosition): Promise<() => void> {
    const head = this.head ?? (await this.readHead());
    const subscription: Subscription = { filter, sink, last: from ?? head, live: false, full: false, gone: false };
    if (from !== undefined && from.seq > head.seq) {
      // The head in memory may be a poll behind the log; the log's own says whether `from` was written.
      const { seq } = await this.options.events.head();
      if (from.seq > seq) {
        // Nothing would ever follow it in order (another database's id, or a made-up one): the
        // stream would wait in silence while events go by.
        subscription.last = { seq, id: WHOLE_TRANSACTION };
        this.refetch(subscription, 'ahead', `event ${eventId(from)} is ahead of this server's event log (${seq}); reread what you show`);
      }
    }
    this.subscriptions.add(subscription);
    void this.pump(subscription);
    return () => {
      subscription.gone = true;
      this.subscriptions.delete(subscription);
    };
  }

  /**
   * Sends a stream what it has not had, as fast as its client reads: from memory while memory holds
   * everything after its last event, else a page from the log at a time. Once it has everything in
   * memory it is live again. A stream whose page cannot be read is closed: it resumes with its
   * Last-Event-ID.
   */
  private async pump(subscription: Subscription): Promise<void> {
    try {
      while (!subscription.gone) {
        if (subscription.full) {
          if (!(await subscription.sink.drained())) break;
          subscription.full = false;
          continue;
        }
        const index = this.keptIndexAfter(subscription.last);
        if (index === undefined) {
          await this.catchUpPage(subscription);
          continue;
        }
        for (let i = index; i < this.kept.length && !subscription.full; i++) subscription.full = !this.deliver(subscription, this.kept[i]!);
        if (!subscription.full) {
          subscription.live = true;
          return;
        }
      }
    } catch (error) {
      if (!subscription.gone) this.options.logger.warn({ err: error }, 'could not read the event log for a stream catching up; it is closed and resumes');
      subscription.sink.close();
    }
    subscription.gone = true;
    this.subscriptions.delete(subscription);
  }

  /** The index in memory of the first event after `last`; undefined when memory does not hold all of those. */
  private keptIndexAfter(last: EventPosition): number | undefined {
    if (this.keptFrom === undefined) return this.head !== undefined && !after(this.head, last) ? this.kept.length : undefined;
    if (after(this.keptFrom, last)) return undefined;
    let low = 0;
    let high = this.kept.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (after(this.kept[middle]!.position, last)) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** Sends a stream the next page of the log after its last event, or a refetch when that is no longer kept. */
  private async catchUpPage(subscription: Subscription): Promise<void> {
    const from = subscription.last;
    const page = await this.options.events.after(from, CATCH_UP_PAGE);
    // Read after the page: pruning only moves forward, so if `from` is kept now, the page was whole.
    const { prunedThrough } = await this.options.events.head();
    if (subscription.gone) return;
    // Events of transaction `prunedThrough` and before are deleted. A position() names a whole
    // transaction as past, so it wants none of its.
    if (from.seq < prunedThrough || (from.seq === prunedThrough && from.id !== WHOLE_TRANSACTION)) {
      subscription.last = this.head !== undefined && after(this.head, from) ? this.head : { seq: prunedThrough, id: WHOLE_TRANSACTION };
      this.refetch(subscription, 'pruned', `events through ${prunedThrough} are no longer kept (retention 15 minutes)`);
      return;
    }
    if (page.length === 0) {
      // Nothing after it in the log yet, and memory has not read that far: wait for the feed's next read.
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs));
      return;
    }
    for (const event of page) {
      if (!this.deliver(subscription, frameOf(event)) && !(await subscription.sink.drained())) {
        subscription.gone = true;
        return;
      }
    }
  }

  /** Tells a stream to reread what it shows; it follows from `subscription.last`, which the frame's id names. */
  private refetch(subscription: Subscription, reason: RefetchReason, message: string): void {
    this.refetches[reason]++;
    if (!subscription.sink.send(refetchFrame(message, subscription.last))) subscription.full = true;
  }

  /** Sends a frame the stream has not had, if its filter takes it; false when its client must read first. */
  private deliver(subscription: Subscription, frame: EventFrame): boolean {
    if (!after(frame.position, subscription.last)) return true;
    subscription.last = frame.position;
    if (frame.event !== undefined && !matches(subscription.filter, frame.event)) return true;
    return subscription.sink.send(frame);
  }

  private async readHead(): Promise<EventPosition> {
    const { seq } = await this.options.events.head();
    // Every event of transaction `seq` and before is past.
    this.head ??= { seq, id: WHOLE_TRANSACTION };
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
    if (head === undefined || head.id === WHOLE_TRANSACTION) return false;
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
      if (subscription.live && !this.deliver(subscription, frame)) {
        // Its client has not read what was sent: it catches up from memory or the log once it has.
        subscription.live = false;
        subscription.full = true;
        void this.pump(subscription);
      }
    }
  }
}

/** The feed as the app runs it: reading `events` every EVENTS_POLL_MS, keeping the latest EVENTS_KEEP. */
export function createEventFeed(
  config: Pick<Config, 'EVENTS_POLL_MS' | 'EVENTS_KEEP'>,
  { events, logger }: Pick<EventFeedOptions, 'events' | 'logger'>,
): EventFeed {
  return new EventFeed({ events, pollMs: config.EVENTS_POLL_MS, keepEvents: config.EVENTS_KEEP, logger });
}
