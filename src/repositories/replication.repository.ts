import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';

export function createReplicationRepository(db: Database) {
  return {
    /**
     * How far the database behind `db` is behind its primary, in milliseconds: 0 on a primary and on
     * a standby that has replayed all it received; otherwise the time since the last transaction it
     * replayed committed (which grows while it cannot keep up, or while it receives nothing).
     */
    async replayLagMs(): Promise<number> {
      const [row] = await queryRows<{ lag_ms: number }>(
        db,
        sql`SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0
                        WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
                        ELSE coalesce(EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000, 0)
                   END::float8 AS lag_ms`,
      );
      return row?.lag_ms ?? 0;
    },
  };
}

export type ReplicationRepository = ReturnType<typeof createReplicationRepository>;
