import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { StartupStatus } from '../startup-status.js';
import { ClaimWindows } from './claim-windows.js';
import { claimFeedSignal, type FeedSignalConfig } from './feed-signal.js';
import { createClaimWindowsRepository } from './repository.js';

/**
 * The claim volumes behind trending, explore and the profiles' windows (README.md here): the one
 * entry the rest of the service imports. `createClaimVolumes` builds the component as the app runs
 * it; tests build `ClaimWindows` around a repository of their own.
 */
export { ClaimWindows, type WindowView } from './claim-windows.js';
export { claimWindowsLifecycle } from './lifecycle.js';
export type { CampaignVolume, ClaimantWindow, ContractVolume, RankedWindow } from './state.js';
export { CLAIMANT_WINDOWS } from './state.js';
export type { BoardEntry, BoardPage } from './claimant-board.js';

export interface ClaimVolumesDependencies {
  config: FeedSignalConfig & Pick<Config, 'CLAIM_FEED_POLL_MS' | 'CLAIM_FEED_IDLE_POLL_MS' | 'CLAIM_LOAD_IN_WORKER' | 'CLAIM_WINDOW_REFRESH_MS'>;
  database: DatabaseHandle;
  logger: Pick<Logger, 'info' | 'warn'>;
  startup?: StartupStatus;
  clock?: () => Date;
}

/** The component with its repository on the reading database, and a LISTEN session where one can be had. */
export function createClaimVolumes({ config, database, logger, startup, clock }: ClaimVolumesDependencies): ClaimWindows {
  const feedSignal = claimFeedSignal(config, database, logger);
  return new ClaimWindows(createClaimWindowsRepository(database.read), {
    pollMs: config.CLAIM_FEED_POLL_MS,
    idlePollMs: config.CLAIM_FEED_IDLE_POLL_MS,
    signal: feedSignal,
    readOnFeedSession: feedSignal ? (read) => feedSignal.readOnSession(read) : undefined,
    workerConnection: config.CLAIM_LOAD_IN_WORKER ? database.readConnection : undefined,
    targetsRefreshMs: config.CLAIM_WINDOW_REFRESH_MS,
    logger,
    startup,
    clock,
  });
}
