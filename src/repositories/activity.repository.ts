import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import { limitOffset } from './paging.js';
import type { PageRequest } from '../schemas/common.js';
import { withLiveFields } from '../json/json-text.js';

export interface ActivityClaimRow {
  claimant: string;
  block_timestamp: string;
  tx_hash: string;
  incentive_position: number;
}

/**
 * A campaign's claims, newest first, ties on the claim's own order (its id): one range of
 * claims_campaign_claimed_at_idx read backwards. A raffle draw is not a claim: it is neither listed
 * nor counted (GET /events streams it as draw.written). The total without a claimant is the
 * incentives' maintained claim counters, not a count of the claims. One statement, so one round trip: the
 * page's claims come as a JSON array of [claimant, block timestamp, transaction, incentive position].
 */
export function createActivityRepository(db: Database) {
  return {
    async findActivity(publicId: string, claimant: string | undefined, page: PageRequest) {
      const ofClaimant = claimant === undefined ? sql`AND NOT w.draw` : sql`AND w.claimant = ${claimant} AND NOT w.draw`;
      const [campaign] = await queryRows<{ list_item: string; live: string; total: number; claims: string }>(
        db,
        sql`SELECT d.list_item, array_to_string(l.incentive_fields || l.list_totals, chr(1)) AS live,
                   ${
                     claimant === undefined
                       ? sql`(SELECT coalesce(sum(i.total_claims), 0)::integer FROM incentives AS i WHERE i.campaign_key = c.key)`
                       : sql`(SELECT count(*)::integer FROM claims AS w WHERE w.campaign_key = c.key ${ofClaimant})`
                   } AS total,
                   (SELECT coalesce(json_agg(json_build_array(p.claimant, p.block_timestamp, p.tx_hash, p.incentive_position)
                                             ORDER BY p.claimed_at DESC, p.id DESC), '[]')::text
                      FROM (SELECT w.id, w.claimed_at, w.claimant, floor(extract(epoch FROM w.claimed_at))::bigint::text AS block_timestamp,
                                   w.tx_hash, w.incentive_position
                              FROM claims AS w
                             WHERE w.campaign_key = c.key ${ofClaimant}
                             ORDER BY w.claimed_at DESC, w.id DESC
                             ${limitOffset(page.limit, page.offset)}) AS p) AS claims
              FROM campaigns AS c
              JOIN campaign_documents AS d ON d.campaign_key = c.key
              JOIN campaign_live AS l ON l.campaign_key = c.key
             WHERE c.public_id = ${publicId}`,
      );
      if (campaign === undefined) return null;
      const claims = (JSON.parse(campaign.claims) as [string, string, string, number][]).map(
        ([claimant, block_timestamp, tx_hash, incentive_position]): ActivityClaimRow => ({ claimant, block_timestamp, tx_hash, incentive_position }),
      );
      // The campaign's incentives as the list shows them, live totals filled in: each event names the one it paid.
      const { incentives } = JSON.parse(withLiveFields(campaign.list_item, campaign.live)) as { incentives: unknown[] };
      return { total: campaign.total, claims, incentives };
    },
  };
}

export type ActivityRepository = ReturnType<typeof createActivityRepository>;
