import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * What the price job reports, on the registry of the process it runs in (the indexer's /metrics):
 * how old each token's newest price is, the sources' errors by kind, the quotes written and refused,
 * and the claims waiting for a price.
 */
export class PriceMetrics {
  private readonly age: Gauge;
  private newestAt: readonly { chainId: number; address: string; at: Date }[] = [];
  private readonly errors: Counter;
  private readonly writtenQuotes: Counter;
  private readonly refusedQuotes: Counter;
  private readonly valuedClaims: Counter;
  private readonly waiting: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    const newest = () => this.newestAt;
    this.age = new Gauge({
      name: 'price_newest_age_seconds',
      help: "Age of the newest price in the history of each token the job prices (the native token is 0x000…000)",
      labelNames: ['chain_id', 'token'],
      registers,
      // The age as of the scrape: the newest prices change only when prices are written.
      collect() {
        this.reset();
        const nowMs = Date.now();
        for (const price of newest()) this.set({ chain_id: String(price.chainId), token: price.address }, Math.max(0, (nowMs - price.at.getTime()) / 1000));
      },
    });
    this.errors = new Counter({ name: 'price_source_errors_total', help: 'Failed requests to a price source, by kind (rate-limited, unavailable, bad-answer)', labelNames: ['source', 'kind'], registers });
    this.writtenQuotes = new Counter({ name: 'price_quotes_written_total', help: 'Prices stored in the history, by source', labelNames: ['source'], registers });
    this.refusedQuotes = new Counter({
      name: 'price_quotes_refused_total',
      help: 'Prices refused, by the source (not a number > 0, a bad time) or the write path (not a positive decimal, too far from the nearest known price), by source',
      labelNames: ['source'],
      registers,
    });
    this.valuedClaims = new Counter({ name: 'price_claims_valued_total', help: 'Claims that got their value when a price arrived', registers });
    this.waiting = new Gauge({ name: 'price_claims_waiting', help: 'Claims waiting for a price (stored with 0 USD until it arrives)', registers });
  }

  written(source: string, count: number): void {
    this.writtenQuotes.inc({ source }, count);
  }

  refused(source: string, count: number): void {
    this.refusedQuotes.inc({ source }, count);
  }

  valued(count: number): void {
    this.valuedClaims.inc(count);
  }

  sourceError(source: string, kind: string): void {
    this.errors.inc({ source, kind });
  }

  claimsWaiting(count: number): void {
    this.waiting.set(count);
  }

  /** The time of each token's newest price (the gauge says its age when scraped). */
  newest(prices: readonly { chainId: number; address: string; at: Date }[]): void {
    this.newestAt = prices;
  }
}
