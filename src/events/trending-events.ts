import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ClaimWindows, RankedWindow } from '../claim-volumes/index.js';
import { Poller } from '../poller.js';
import type { EventFeed } from './event-feed.js';

/** How many campaigns a trending event lists. */
export const TRENDING_TOP = 10;

export interface TrendingEntryData {
  campaignId: string;
  usdClaimed: number;
  claims: number;
}

export interface TrendingEventsOptions {
  windows: Pick<ClaimWindows, 'at'>;
  feed: Pick<EventFeed, 'publishDerived' | 'streams'>;
  /** How often the top is compared with the one last sent: at most one event per period this often. */
  intervalMs: number;
  clock: () => Date;
  logger: Pick<Logger, 'warn'>;
}

const PERIODS: readonly RankedWindow[] = ['1h', '24h'];

/**
 * The `trending.changed` events: every `intervalMs` it reads the top campaigns by USD claimed over
 * the last hour and day from the claim volumes (exact, as GET /reward-kit/trending ranks them) and
 * sends the top of a period whose campaigns, order or volumes differ from the last one sent. So a
 * period's top goes out at most once per interval, and only when it moved (or, after start and when
 * streams open after none was, once); nothing is read while no stream is open. Derived in each process
 * from its own claim volumes: two replicas send the same tops, not always at the same moments.
 */
export class TrendingEvents {
  private readonly last = new Map<RankedWindow, string>();
  private readonly poller: Poller;

  constructor(private readonly options: TrendingEventsOptions) {
    this.poller = new Poller({
      round: () => this.check(),
      pause: () => options.intervalMs,
      onError: (error) => options.logger.warn({ err: error }, 'could not read the trending top for the event streams'),
    });
  }

  /** The first comparison comes one interval after start. */
  start(): void {
    this.poller.start(this.options.intervalMs);
  }

  async close(): Promise<void> {
    await this.poller.close();
  }

  /** Compares each period's top with the last one sent, and sends it where it changed. */
  async check(): Promise<void> {
    if (this.options.feed.streams === 0) {
      // Nobody to tell: no ranking read. The first stream to open gets the current tops.
      this.last.clear();
      return;
    }
    const view = await this.options.windows.at(this.options.clock());
    for (const period of PERIODS) {
      const top: TrendingEntryData[] = [];
      for (const volume of view.ranked(period)) {
        if (top.length === TRENDING_TOP) break;
        top.push({ campaignId: view.publicId(volume.row), usdClaimed: volume.usdMicros(period) / 1e6, claims: volume.claims(period) });
      }
      const text = JSON.stringify(top);
      // The first reading after start goes out unless it is empty: this process has sent no top yet.
      if ((this.last.get(period) ?? '[]') === text) continue;
      if (this.options.feed.publishDerived('trending.changed', { period, top })) this.last.set(period, text);
    }
  }
}

/** The trending events as the app runs them: the top compared every EVENTS_TRENDING_MS. */
export function createTrendingEvents(
  config: Pick<Config, 'EVENTS_TRENDING_MS'>,
  dependencies: Omit<TrendingEventsOptions, 'intervalMs'>,
): TrendingEvents {
  return new TrendingEvents({ ...dependencies, intervalMs: config.EVENTS_TRENDING_MS });
}
