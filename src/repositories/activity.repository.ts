import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import { limitOffset } from './paging.js';
import type { KeysetPosition } from '../keyset-cursor.js';
import { withLiveFields } from '../json/json-text.js';

export interface ActivityClaimRow {
  claimant: string;
  block_timestamp: string;
  tx_hash: string;
  incentive_position: number;
  /** Where a walk continues after this claim: its time in microseconds and its id. */
  position: KeysetPosition;
}

/**
 * Which claims: a page (`limit` after `offset`), or the `limit` after a walk's position (newest first,
 * so older than it). `count` asks for the total; `limit + 1` rows are read, so the caller knows
 * whether a next page exists.
 */
export type ActivityRequest = { limit: number; count: boolean } & ({ offset: number } | { after: KeysetPosition });

/**
 * A campaign's claims, newest first, ties on the claim's own order (its id): one range of
 * claims_campaign_claimed_at_idx read backwards. A raffle draw is not a claim: it is neither listed
 * nor counted (GET /events streams it as draw.written). The total without a claimant is the
 * incentives' maintained claim counters, not a count of the claims. One statement, so one round trip: the
 * page's claims come as a JSON array of [claimant, block timestamp, transaction, incentive position].
 */
export function createActivityRepository(db: Database) {
  return {
    async findActivity(publicId: string, claimant: string | undefined, request: ActivityRequest) {
      const ofClaimant = claimant === undefined ? sql`AND NOT w.draw` : sql`AND w.claimant = ${claimant} AND NOT w.draw`;
      // Older than the position, in the index's order: the walk reads on where the last page ended.
      const after =
        'after' in request
          ? sql`AND (w.claimed_at, w.id) < (timestamptz 'epoch' + ${request.after.key}::bigint * interval '1 microsecond', ${request.after.id}::bigint)`
          : sql``;
      const total = !request.count
        ? sql`NULL::integer`
        : claimant === undefined
          ? sql`(SELECT coalesce(sum(i.total_claims), 0)::integer FROM incentives AS i WHERE i.campaign_key = c.key)`
          : sql`(SELECT count(*)::integer FROM claims AS w WHERE w.campaign_key = c.key ${ofClaimant})`;
      const [campaign] = await queryRows<{ list_item: string; live: string; total: number | null; claims: string }>(
        db,
        sql`SELECT d.list_item, array_to_string(l.incentive_fields || l.list_totals, chr(1)) AS live,
                   ${total} AS total,
                   (SELECT coalesce(json_agg(json_build_array(p.claimant, p.block_timestamp, p.tx_hash, p.incentive_position,
                                                              p.claimed_at_us, p.id::text)
                                             ORDER BY p.claimed_at DESC, p.id DESC), '[]')::text
                      FROM (SELECT w.id, w.claimed_at, w.claimant, floor(extract(epoch FROM w.claimed_at))::bigint::text AS block_timestamp,
                                   w.tx_hash, w.incentive_position, (extract(epoch FROM w.claimed_at) * 1000000)::bigint::text AS claimed_at_us
                              FROM claims AS w
                             WHERE w.campaign_key = c.key ${ofClaimant} ${after}
                             ORDER BY w.claimed_at DESC, w.id DESC
                             ${limitOffset(request.limit + 1, 'offset' in request ? request.offset : 0)}) AS p) AS claims
              FROM campaigns AS c
              JOIN campaign_documents AS d ON d.campaign_key = c.key
              JOIN campaign_live AS l ON l.campaign_key = c.key
             WHERE c.public_id = ${publicId}`,
      );
      if (campaign === undefined) return null;
      const rows = (JSON.parse(campaign.claims) as [string, string, string, number, string, string][]).map(
        ([claimant, block_timestamp, tx_hash, incentive_position, key, id]): ActivityClaimRow => ({
          claimant,
          block_timestamp,
          tx_hash,
          incentive_position,
          position: { key, id },
        }),
      );
      // The campaign's incentives as the list shows them, live totals filled in: each event names the one it paid.
      const { incentives } = JSON.parse(withLiveFields(campaign.list_item, campaign.live)) as { incentives: unknown[] };
      return { total: campaign.total ?? undefined, claims: rows.slice(0, request.limit), more: rows.length > request.limit, incentives };
    },
  };
}

export type ActivityRepository = ReturnType<typeof createActivityRepository>;
