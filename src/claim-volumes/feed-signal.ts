import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { ClaimFeedListener } from './feed-listener.js';

/** The settings that say where and how the claim feed's own session connects. */
export type FeedSignalConfig = Pick<
  Config,
  | 'DATABASE_URL'
  | 'MIGRATE_DATABASE_URL'
  | 'DB_POOL_MODE'
  | 'DB_CONNECT_TIMEOUT_MS'
  | 'DB_STATEMENT_TIMEOUT_MS'
  | 'DB_QUERY_TIMEOUT_MS'
  | 'DB_APPLICATION_NAME'
>;

/**
 * Where the claim windows can LISTEN for claim changes, if anywhere. LISTEN needs a session of its
 * own on the primary, and the notification must not arrive before the feed can be read:
 * - reads on a hot standby (DATABASE_READ_URL): none; a standby cannot LISTEN, and a notification from
 *   the primary comes before the standby replays the change, so the windows poll every CLAIM_FEED_POLL_MS;
 * - behind a transaction pooler (DB_POOL_MODE=transaction): MIGRATE_DATABASE_URL, the direct
 *   connection to the primary, when it is set; none otherwise;
 * - PGlite: none (one process; the demo polls).
 *
 * The claim windows read the feed on that session too. Every request that reads claim volumes waits
 * for a feed read; through a transaction pooler it took a hop more (trending lost a large share of its
 * throughput through PgBouncer, much less with the feed read directly: docs/operations.md, PgBouncer), and on
 * direct connections a pool checkout and the query builder's work, for a statement that is always
 * the same.
 */
export function claimFeedSignal(
  config: FeedSignalConfig,
  database: Pick<DatabaseHandle, 'kind' | 'readPool'>,
  logger: Pick<Logger, 'info' | 'warn'>,
): ClaimFeedListener | undefined {
  if (database.kind !== 'postgres' || database.readPool !== undefined) return undefined;
  const url = config.DB_POOL_MODE === 'transaction' ? config.MIGRATE_DATABASE_URL : config.DATABASE_URL;
  if (url === undefined) return undefined;
  return new ClaimFeedListener({
    url,
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    applicationName: `${config.DB_APPLICATION_NAME} (claim feed)`,
    logger,
    // The claim windows read the feed on this session as well (readOnSession).
    reads: { statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS, queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS ?? config.DB_STATEMENT_TIMEOUT_MS + 1000 },
  });
}
