import type { Logger } from 'pino';
import type { DatabaseHandle } from './db/client.js';
import { writeDemoClaim } from './ingest/demo-claims.js';

/**
 * The zero-setup demo's live side: no chain is followed and nothing imports, so without this the
 * demo data never changes and `GET /events` never sends anything. Every `intervalMs` it writes one
 * new claim on the demo data (src/ingest/demo-claims.ts), which the streams send as `claim.written`
 * and which moves the campaign's totals, activity and trending.
 *
 * One write at a time: the next is scheduled when the last has ended. Its timer does not keep the
 * process alive, and close() waits for the write in flight, so that the database can be closed
 * after it. A write that fails is logged and the next tick tries again.
 */

/** What a tick writes at `now`: the campaign it claimed from, or undefined when no campaign can take a claim. */
export type DemoClaimWrite = (now: Date) => Promise<{ campaign: string; txHash: string } | undefined>;

export interface DemoLiveWriterOptions {
  database: DatabaseHandle;
  intervalMs: number;
  logger: Pick<Logger, 'info' | 'warn' | 'debug'>;
  clock?: () => Date;
  /** Replaces the write of a demo claim (tests). */
  write?: DemoClaimWrite;
}

export class DemoLiveWriter {
  private readonly write: DemoClaimWrite;
  private readonly clock: () => Date;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private started = false;
  /** The last tick failed (warned once per run of failures), or found nothing to claim (said once). */
  private failing = false;
  private idle = false;

  constructor(private readonly options: DemoLiveWriterOptions) {
    this.write = options.write ?? ((now) => writeDemoClaim(options.database, now));
    this.clock = options.clock ?? (() => new Date());
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule();
  }

  /** Stops the ticks and resolves once the write in flight, if any, has ended. */
  async close(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
  }

  /** Writes one claim now; never rejects (tests call it to skip the wait). */
  tick(): Promise<void> {
    this.writing ??= this.writeOnce().finally(() => {
      this.writing = undefined;
    });
    return this.writing;
  }

  private async writeOnce(): Promise<void> {
    try {
      const written = await this.write(this.clock());
      if (this.failing) this.options.logger.info('demo live claims: writing again');
      this.failing = false;
      if (written === undefined) {
        if (!this.idle) this.options.logger.info('demo live claims: no demo campaign is active with budget left; none written');
        this.idle = true;
        return;
      }
      this.idle = false;
      this.options.logger.debug(written, 'demo live claim written');
    } catch (error) {
      // Once per run of failures: the next ticks try again, and a database that stays down would
      // otherwise fill the log with the same warning every few seconds.
      if (!this.failing) this.options.logger.warn({ err: error }, 'demo live claim not written; trying again at the next tick');
      this.failing = true;
    }
  }

  private schedule(): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick().then(() => this.schedule());
    }, this.options.intervalMs);
    this.timer.unref();
  }
}
