import type { ServerResponse } from 'node:http';
import type { EventSink } from './event-feed.js';
import { type EventFrame, HEARTBEAT } from './frames.js';

export interface StreamLimits {
  /** Streams one process holds open at most. */
  maxStreams: number;
  /** Streams one client IP holds open at most (per process). */
  maxPerIp: number;
  /** How often an idle stream gets a comment line, so that proxies do not close it. */
  heartbeatMs: number;
  /** Bytes a stream may have waiting for a slow client; past them it is closed (the client resumes with Last-Event-ID). */
  maxBufferBytes: number;
}

/** Why a stream cannot open: too many from this client IP, or too many in this process. */
export type Refusal = 'per-ip' | 'per-process';

/** One open SSE response. */
class Stream implements EventSink {
  closed = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly maxBufferBytes: number,
  ) {}

  send(frame: EventFrame): boolean {
    return this.write(frame.bytes);
  }

  write(bytes: Buffer): boolean {
    if (this.closed) return false;
    this.response.write(bytes);
    // A client that does not read fills the socket's buffer and then this one; the server never holds more than the bound for it.
    if (this.response.writableLength > this.maxBufferBytes) {
      this.end(true);
      return false;
    }
    return true;
  }

  end(abort = false): void {
    if (this.closed) return;
    this.closed = true;
    if (abort) this.response.destroy();
    else this.response.end();
  }
}

/**
 * The open event streams of this process: it admits a stream within the limits per client IP and
 * per process, writes a heartbeat to every stream every `heartbeatMs`, closes a stream whose client
 * lets more than `maxBufferBytes` wait, and ends them all when the app closes.
 */
export class EventStreams {
  private readonly streams = new Set<Stream>();
  private readonly perIp = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly limits: StreamLimits) {}

  get size(): number {
    return this.streams.size;
  }

  start(): void {
    this.timer ??= setInterval(() => {
      for (const stream of this.streams) stream.write(HEARTBEAT);
    }, this.limits.heartbeatMs);
    this.timer.unref();
  }

  /** Ends every stream (the app is closing): clients reconnect to another replica with Last-Event-ID. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const stream of this.streams) stream.end();
  }

  /** Undefined when a stream of `ip` may open, else why not. */
  refusal(ip: string): Refusal | undefined {
    if (this.streams.size >= this.limits.maxStreams) return 'per-process';
    if ((this.perIp.get(ip) ?? 0) >= this.limits.maxPerIp) return 'per-ip';
    return undefined;
  }

  /** Counts `response` as a stream of `ip` until it closes; `onClose` runs then. */
  open(response: ServerResponse, ip: string, onClose: () => void): EventSink {
    const stream = new Stream(response, this.limits.maxBufferBytes);
    this.streams.add(stream);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    const closed = () => {
      if (!this.streams.delete(stream)) return;
      stream.closed = true;
      const left = (this.perIp.get(ip) ?? 1) - 1;
      if (left === 0) this.perIp.delete(ip);
      else this.perIp.set(ip, left);
      onClose();
    };
    response.once('close', closed);
    // A client that hung up while the request was on its way in closed the socket before anyone listened.
    if (response.socket === null || response.socket.destroyed) closed();
    return stream;
  }
}
