import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { ClaimFeedListener, type FeedSignal } from './claim-feed-listener.js';

/**
 * Where the claim windows can LISTEN for claim changes, if anywhere. LISTEN needs a session of its
 * own on the primary, and the notification must not arrive before the feed can be read:
 * - reads on a hot standby (DATABASE_READ_URL): none; a standby cannot LISTEN, and a notification from
 *   the primary comes before the standby replays the change, so the windows poll every CLAIM_FEED_POLL_MS;
 * - behind a transaction pooler (DB_POOL_MODE=transaction): MIGRATE_DATABASE_URL, the direct
 *   connection to the primary, when it is set; none otherwise;
 * - PGlite: none (one process; the demo polls).
 */
export function claimFeedSignal(
  config: Pick<Config, 'DATABASE_URL' | 'MIGRATE_DATABASE_URL' | 'DB_POOL_MODE' | 'DB_CONNECT_TIMEOUT_MS' | 'DB_APPLICATION_NAME'>,
  database: Pick<DatabaseHandle, 'kind' | 'readPool'>,
  logger: Pick<Logger, 'info' | 'warn'>,
): FeedSignal | undefined {
  if (database.kind !== 'postgres' || database.readPool !== undefined) return undefined;
  const url = config.DB_POOL_MODE === 'transaction' ? config.MIGRATE_DATABASE_URL : config.DATABASE_URL;
  if (url === undefined) return undefined;
  return new ClaimFeedListener({
    url,
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    applicationName: `${config.DB_APPLICATION_NAME} (claim feed)`,
    logger,
  });
}
