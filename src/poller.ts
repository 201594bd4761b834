export interface PollerOptions {
  /** One round of the background work. A round never starts while the previous one runs. */
  round: () => Promise<void>;
  /**
   * How long to wait after a round ends before the next starts. Asked when each round ends, so the
   * pause can depend on what the component holds then (someone waiting, a signal, a failure).
   */
  pause: () => number;
  /**
   * A round that threw: reported here, and the loop goes on. `again` says the round before it
   * failed too, so a component can log an outage once rather than once per round.
   */
  onError: (error: unknown, again: boolean) => void;
  /** The first round that succeeds after one that failed. */
  onRecovered?: () => void;
}

/**
 * The timer loop of a component that works in the background: rounds one after the other, each
 * followed by a pause, never two at a time; a failing round is reported, never thrown, and the
 * loop goes on. The timer does not keep the process alive. `close()` stops the loop for good and
 * waits for the round in flight, so that a component closed after it has nothing left running.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  /** When the pending timer fires (epoch ms). */
  private due = 0;
  private running: Promise<void> | undefined;
  private started = false;
  private closed = false;
  private lastFailed = false;

  constructor(private readonly options: PollerOptions) {}

  /** Whether the last round failed. */
  get failing(): boolean {
    return this.lastFailed;
  }

  /** Starts the loop: the first round after `firstDelayMs`. Again, or after close(): nothing. */
  start(firstDelayMs = 0): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.schedule(firstDelayMs);
  }

  /**
   * Brings the next round forward to at most `delayMs` from now; never puts one off. During a round
   * it does nothing: the round's end asks `pause()`, which sees what the caller changed.
   */
  hurry(delayMs: number): void {
    if (!this.started || this.closed || this.running !== undefined) return;
    if (this.timer !== undefined && Date.now() + delayMs >= this.due) return;
    this.schedule(delayMs);
  }

  /** Stops the loop (no round starts after this call) and waits for the round in flight. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.due = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const round = this.runRound();
      this.running = round;
      void round.then(() => {
        this.running = undefined;
        if (!this.closed) this.schedule(this.options.pause());
      });
    }, delayMs);
    this.timer.unref();
  }

  /** One round, its outcome reported; it never rejects. */
  private async runRound(): Promise<void> {
    try {
      await this.options.round();
      if (this.lastFailed) this.options.onRecovered?.();
      this.lastFailed = false;
    } catch (error) {
      this.options.onError(error, this.lastFailed);
      this.lastFailed = true;
    }
  }
}
