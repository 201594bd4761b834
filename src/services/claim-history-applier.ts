import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Poller } from '../poller.js';
import type { StartupStatus } from '../startup-status.js';

/**
 * The time one application may take. The longest is a recompute of every claim's history (after a
 * bulk load, or a backlog of more than 100,000 changes, as when no server ran for a while): minutes
 * on tens of millions of claims, where an API request's statement timeout would cut every attempt
 * short and the backlog would only grow. Meanwhile the application holds one pool connection, and
 * a TRUNCATE of the claims waits for it.
 */
export const APPLY_TIMEOUT_MS = 600_000;

export interface ClaimHistoryApplierOptions {
  /**
   * One application of the claim changes committed since the last (apply_claim_history()), given
   * `timeoutMs` as its statement timeout.
   */
  apply: (timeoutMs: number) => Promise<unknown>;
  /** The pause between applications. */
  intervalMs: number;
  /** Start-up work (migrations) the applications wait for: before it the function does not exist. */
  startup?: StartupStatus;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/**
 * Keeps the campaigns' history tables (claim_hours, claimant_buckets, claimant_firsts) close to the
 * claims: every `intervalMs` it applies the claim changes committed since the last application, in
 * one batch. Claim writers pay nothing for the history this way, and reads stay exact without it
 * (campaign_history() adds what is not applied yet); it keeps what a read has to add small. Several
 * servers may run one each: the database lets one apply at a time.
 */
export class ClaimHistoryApplier {
  private readonly poller: Poller;

  constructor(options: ClaimHistoryApplierOptions) {
    this.poller = new Poller({
      round: async () => {
        if (options.startup?.pending() === undefined) await options.apply(APPLY_TIMEOUT_MS);
      },
      pause: () => options.intervalMs,
      onError: (error, again) => {
        if (!again) options.logger.warn({ err: error }, 'the campaign history could not apply the latest claims; reads add them meanwhile, and it tries again');
      },
      onRecovered: () => options.logger.info('the campaign history applies the latest claims again'),
    });
  }

  start(): void {
    this.poller.start();
  }

  async close(): Promise<void> {
    await this.poller.close();
  }
}

export function createClaimHistoryApplier(
  config: Pick<Config, 'CLAIM_HISTORY_APPLY_MS'>,
  dependencies: Omit<ClaimHistoryApplierOptions, 'intervalMs'>,
): ClaimHistoryApplier {
  return new ClaimHistoryApplier({ ...dependencies, intervalMs: config.CLAIM_HISTORY_APPLY_MS });
}
