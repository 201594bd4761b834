import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Poller } from '../poller.js';
import type { StartupStatus } from '../startup-status.js';

export interface ClaimHistoryApplierOptions {
  /** One application of the claim changes committed since the last (apply_claim_history()). */
  apply: () => Promise<unknown>;
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
        if (options.startup?.pending() === undefined) await options.apply();
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
