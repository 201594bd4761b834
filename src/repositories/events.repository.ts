import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';

/** Where an event stands in commit order: its transaction's position (event_commits.seq), then its own id. */
export interface EventPosition {
  seq: number;
  id: number;
}

/** An event as stored: what streams filter on, and its data as JSON text (sent as it is). */
export interface StoredEvent extends EventPosition {
  type: string;
  chainId: number | null;
  campaignId: string | null;
  claimant: string | null;
  data: string;
}

export function createEventsRepository(db: Database) {
  return {
    /** The committed events after `after`, in commit order, at most `limit` of them. */
    async after(after: EventPosition, limit: number): Promise<StoredEvent[]> {
      return queryRows<StoredEvent>(
        db,
        sql`SELECT c.seq::float8 AS seq, e.id::float8 AS id, e.type, e.chain_id AS "chainId", e.campaign_id AS "campaignId",
                   e.claimant, e.data::text AS data
              FROM event_commits AS c
              JOIN events AS e ON e.xid = c.xid
             WHERE c.seq >= ${after.seq} AND (c.seq, e.id) > (${after.seq}, ${after.id}::numeric)
             ORDER BY c.seq, e.id
             LIMIT ${limit}`,
      );
    },

    /** The last position committed (0 before any event), and the last one whose events are deleted. */
    async head(): Promise<{ seq: number; prunedThrough: number }> {
      const [row] = await queryRows<{ seq: number; pruned_through: number }>(
        db,
        sql`SELECT coalesce((SELECT max(seq) FROM event_commits), 0)::float8 AS seq,
                   coalesce((SELECT pruned_through FROM event_retention), 0)::float8 AS pruned_through`,
      );
      return { seq: row!.seq, prunedThrough: row!.pruned_through };
    },
  };
}

export type EventsRepository = ReturnType<typeof createEventsRepository>;
