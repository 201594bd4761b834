import type { ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import type { EventSink } from './event-feed.js';
import { type EventFrame, HEARTBEAT } from './frames.js';

export interface StreamLimits {
  /** Streams one process holds open at most. */
  maxStreams: number;
  /** Streams one client IP holds open at most (per process). */
  maxPerIp: number;
  /** How often an idle stream gets a comment line, so that proxies do not close it. */
  heartbeatMs: number;
  /** Bytes that may wait unsent for one client; past them the stream writes nothing more until the client has read them. */
  maxBufferBytes: number;
  /** How long a client may leave what waits for it unread before its stream is closed (it resumes with Last-Event-ID). */
  stallMs: number;
}

/** Why a stream cannot open: too many from this client IP, or too many in this process. */
export type Refusal = 'per-ip' | 'per-process';

/** What the streams counted since the process started, for /metrics. */
export interface StreamCounts {
  /** Streams closed because their client left what was sent unread for `stallMs`. */
  dropped: { stalled: number };
}

/** What the streams tell their operator about: a stream dropped, and why. */
export interface StreamLog {
  warn(details: object, message: string): void;
}

/**
 * One open SSE response. It writes what it is given while the client reads; once `maxBufferBytes`
 * wait unsent, `send` says so and the feed waits for `drained()` before it sends the next frame:
 * the frames wait in the event log, not here. A client that reads nothing for `stallMs` while
 * something waits for it is disconnected.
 */
class Stream implements EventSink {
  closed = false;
  private waiting: ((drained: boolean) => void)[] = [];
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly response: ServerResponse,
    private readonly limits: StreamLimits,
    private readonly onStall: () => void,
  ) {
    response.on('drain', () => this.wake(true));
  }

  /**
   * Whether more may be written now. The stream waits only once the response asked for a drain
   * (a write returned false) and `maxBufferBytes` wait: then a 'drain' is sure to come. Below the
   * response's own high-water mark (Node's default, which grew from Node 22 on) no write returns
   * false and no 'drain' would come, so the bound is the larger of the two.
   */
  get writable(): boolean {
    return !this.closed && !(this.response.writableNeedDrain && this.response.writableLength >= this.limits.maxBufferBytes);
  }

  send(frame: EventFrame): boolean {
    return this.write(frame.bytes);
  }

  write(bytes: Buffer): boolean {
    if (this.closed) return false;
    this.response.write(bytes);
    if (this.writable) return true;
    // The client has not read what waits: the stall clock runs until it does (a drain).
    this.stallTimer ??= setTimeout(() => {
      this.onStall();
      this.end(true);
    }, this.limits.stallMs);
    return false;
  }

  drained(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.writable) return Promise.resolve(true);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Called when the socket drained (true) or the stream ended (false). */
  wake(drained: boolean): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve(drained && !this.closed);
  }

  close(): void {
    this.end();
  }

  end(abort = false): void {
    if (this.closed) return;
    this.closed = true;
    this.wake(false);
    if (abort) this.response.destroy();
    else this.response.end();
  }
}

/**
 * A place among the streams, taken before the stream's first await: the limits count it from
 * then on, so that many requests at once cannot all pass the check before any of them opens.
 */
export interface StreamSlot {
  /** Counts `response` as this slot's stream until it closes; `onClose` runs then. */
  open(response: ServerResponse, onClose: () => void): EventSink;
  /** Gives the slot back when its stream will not open (the request failed first). */
  release(): void;
}

/**
 * The open event streams of this process: it admits a stream within the limits per client IP and
 * per process, writes a heartbeat to every idle stream every `heartbeatMs`, closes a stream whose
 * client reads nothing for `stallMs`, and ends them all when the app closes.
 */
export class EventStreams {
  private readonly streams = new Set<Stream>();
  /** Slots taken, open streams included. */
  private taken = 0;
  private readonly perIp = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private readonly counts: StreamCounts = { dropped: { stalled: 0 } };

  constructor(
    readonly limits: StreamLimits,
    private readonly log: StreamLog = { warn: () => undefined },
  ) {}

  get size(): number {
    return this.streams.size;
  }

  get dropped(): Readonly<StreamCounts['dropped']> {
    return { ...this.counts.dropped };
  }

  start(): void {
    this.timer ??= setInterval(() => {
      // A stream with something waiting is not idle: its client is still to read that.
      for (const stream of this.streams) if (stream.writable) stream.write(HEARTBEAT);
    }, this.limits.heartbeatMs);
    this.timer.unref();
  }

  /** Ends every stream (the app is closing): clients reconnect to another replica with Last-Event-ID. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const stream of this.streams) stream.end();
  }

  /** Takes a slot for a stream of `ip`, or says why there is none. */
  admit(ip: string): StreamSlot | Refusal {
    if (this.taken >= this.limits.maxStreams) return 'per-process';
    if ((this.perIp.get(ip) ?? 0) >= this.limits.maxPerIp) return 'per-ip';
    this.taken++;
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.taken--;
      const left = (this.perIp.get(ip) ?? 1) - 1;
      if (left === 0) this.perIp.delete(ip);
      else this.perIp.set(ip, left);
    };
    return {
      release,
      open: (response, onClose) => {
        const stream: Stream = new Stream(response, this.limits, () => {
          this.counts.dropped.stalled++;
          this.log.warn({ ip, stallMs: this.limits.stallMs }, 'event stream closed: its client read nothing of what waited for it');
        });
        this.streams.add(stream);
        const closed = () => {
          if (!this.streams.delete(stream)) return;
          stream.closed = true;
          stream.wake(false);
          release();
          onClose();
        };
        response.once('close', closed);
        // A client that hung up while the request was on its way in closed the socket before anyone listened.
        if (response.socket === null || response.socket.destroyed) closed();
        return stream;
      },
    };
  }
}

/** The streams as the app runs them, within the EVENTS_* limits. */
export function createEventStreams(
  config: Pick<Config, 'EVENTS_MAX_STREAMS' | 'EVENTS_MAX_STREAMS_PER_IP' | 'EVENTS_HEARTBEAT_MS' | 'EVENTS_MAX_BUFFER_KB' | 'EVENTS_STALL_MS'>,
  log: StreamLog,
): EventStreams {
  return new EventStreams(
    {
      maxStreams: config.EVENTS_MAX_STREAMS,
      maxPerIp: config.EVENTS_MAX_STREAMS_PER_IP,
      heartbeatMs: config.EVENTS_HEARTBEAT_MS,
      maxBufferBytes: config.EVENTS_MAX_BUFFER_KB * 1024,
      stallMs: config.EVENTS_STALL_MS,
    },
    log,
  );
}
