import type { Config } from '../config.js';

/**
 * Whether the read replica (DATABASE_READ_URL) is too far behind the primary to answer from. The lag
 * is measured at most once per `everyMs` whatever the request rate (concurrent requests share one
 * measurement), so watching it costs the database one small query a second per replica.
 */
export class ReplicaLag {
  private lagMs = 0;
  private measuredAt = Number.NEGATIVE_INFINITY;
  private measuring: Promise<void> | undefined;

  constructor(
    private readonly measure: () => Promise<number>,
    private readonly maxLagMs: number,
    private readonly everyMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Undefined while the replica is close enough; otherwise why not. Rejects when it cannot be asked. */
  async tooFarBehind(): Promise<string | undefined> {
    if (this.now() - this.measuredAt >= this.everyMs) {
      this.measuring ??= this.measure()
        .then((lagMs) => {
          this.lagMs = lagMs;
          this.measuredAt = this.now();
        })
        .finally(() => {
          this.measuring = undefined;
        });
      await this.measuring;
    }
    if (this.lagMs <= this.maxLagMs) return undefined;
    return `the read replica is ${(this.lagMs / 1000).toFixed(1)} s behind the primary (at most ${this.maxLagMs / 1000} s allowed)`;
  }
}

/**
 * The gate's measure of the read replica, or undefined where nothing can lag: only a separate read
 * database can (the primary never does), and DB_READ_MAX_LAG_MS=0 turns the gate off.
 */
export function replicaLagFor(config: Pick<Config, 'DATABASE_READ_URL' | 'DB_READ_MAX_LAG_MS'>, measure: () => Promise<number>): ReplicaLag | undefined {
  return config.DATABASE_READ_URL && config.DB_READ_MAX_LAG_MS > 0 ? new ReplicaLag(measure, config.DB_READ_MAX_LAG_MS) : undefined;
}
