import { afterEach, describe, expect, it } from 'vitest';
import { EventFeed, type EventSink } from '../../src/events/event-feed.js';
import type { EventFrame } from '../../src/events/frames.js';
import { TrendingEvents } from '../../src/events/trending-events.js';
import type { EventPosition, StoredEvent } from '../../src/repositories/events.repository.js';

/**
 * A process without open streams does no event work: the feed reads nothing from the event log (and
 * keeps nothing), the trending job reads no ranking. The event log itself is a stand-in here: what
 * these tests count is how often it is asked; reading it for real is test/routes/events.test.ts.
 */
class CountingLog {
  reads = 0;
  prunedThrough: number | undefined;
  readonly events: StoredEvent[] = [];

  append(seq: number): void {
    this.events.push({ seq, id: seq, type: 'claim.written', chainId: 8453, campaignId: 'c', claimant: '0x1', data: `{"n":${seq}}` });
  }

  async after(from: EventPosition, limit: number): Promise<StoredEvent[]> {
    this.reads++;
    return this.events.filter((event) => event.seq > from.seq || (event.seq === from.seq && event.id > from.id)).slice(0, limit);
  }

  async head(): Promise<{ seq: number; prunedThrough: number }> {
    this.reads++;
    // Nothing committed in the retention: everything through the head is pruned.
    const seq = this.events.at(-1)?.seq ?? 0;
    return { seq, prunedThrough: this.prunedThrough ?? 0 };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logger = { warn: () => undefined };
/** A stream whose client reads everything at once, keeping what it got in `received`. */
const memorySink = (received: EventFrame[]): EventSink => ({
  send: (frame) => (received.push(frame), true),
  drained: async () => true,
  close: () => undefined,
});

describe('event work without streams', () => {
  let feed: EventFeed | undefined;
  afterEach(async () => feed?.close());

  it('the feed reads the log only while a stream is open, and a stream that opens later misses nothing', async () => {
    const log = new CountingLog();
    feed = new EventFeed({ events: log, pollMs: 5, keepEvents: 100, logger });
    feed.start();
    log.append(1);
    await sleep(60);
    expect(log.reads).toBe(0);

    const received: EventFrame[] = [];
    const sink = memorySink(received);
    const unsubscribe = await feed.subscribe({}, sink);
    log.append(2);
    await expect.poll(() => received.map((frame) => frame.position.seq)).toEqual([2]);

    unsubscribe();
    await sleep(20);
    const readsWhenClosed = log.reads;
    log.append(3);
    log.append(4);
    await sleep(60);
    expect(log.reads).toBe(readsWhenClosed);

    // Resuming from the last event it got: what came while no stream was open, from the log.
    const resumed: EventFrame[] = [];
    await feed.subscribe({}, memorySink(resumed), { seq: 2, id: 2 });
    log.append(5);
    await expect.poll(() => resumed.map((frame) => frame.position.seq)).toEqual([3, 4, 5]);
  });

  it('a stream that opens on an idle feed gets every event committed after its position was read, and no refetch', async () => {
    const log = new CountingLog();
    log.append(1);
    // A quiet log: its last transaction is past the retention, so the pruning reached the head.
    log.prunedThrough = 1;
    feed = new EventFeed({ events: log, pollMs: 5, keepEvents: 100, logger });
    feed.start();
    await sleep(20);
    // GET /events reads the position before the client sees its stream open; the client then writes.
    const start = await feed.position();
    log.append(2);
    const received: EventFrame[] = [];
    await feed.subscribe({}, memorySink(received), start);
    log.append(3);
    await expect.poll(() => received.map((frame) => frame.position.seq)).toEqual([2, 3]);
    expect(received.every((frame) => frame.event !== undefined)).toBe(true);
  });

  it('the trending job reads no ranking while no stream is open', async () => {
    let rankings = 0;
    const windows = {
      at: async () => {
        rankings++;
        return { ranked: () => [], publicId: () => '' } as never;
      },
    };
    let streams = 0;
    const trending = new TrendingEvents({
      windows,
      feed: { publishDerived: () => true, get streams() { return streams; } },
      intervalMs: 1000,
      clock: () => new Date(),
      logger,
    });
    await trending.check();
    expect(rankings).toBe(0);
    streams = 1;
    await trending.check();
    expect(rankings).toBe(1);
  });
});
