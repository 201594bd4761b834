import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import type { PageRequest } from '../schemas/common.js';
import { withLiveFields } from './json-text.js';

export interface ActivityClaimRow {
  claimant: string;
  block_timestamp: string;
  tx_hash: string;
  incentive_position: number;
}

/**
 * A campaign's claims, newest first, ties on the claim's own order (its id): one range of
 * claims_campaign_claimed_at_idx read backwards. The total without a claimant is the incentives'
 * maintained claim counters, not a count of the claims.
 */
export function createActivityRepository(db: Database) {
  return {
    async findActivity(publicId: string, claimant: string | undefined, page: PageRequest) {
      const [campaign] = await queryRows<{ key: number; list_item: string; live: string; total: number }>(
        db,
        sql`SELECT c.key, d.list_item, array_to_string(l.incentive_fields || l.list_totals, chr(1)) AS live,
                   ${
                     claimant === undefined
                       ? sql`(SELECT coalesce(sum(i.total_claims), 0)::integer FROM incentives AS i WHERE i.campaign_key = c.key)`
                       : sql`(SELECT count(*)::integer FROM claims AS w WHERE w.campaign_key = c.key AND w.claimant = ${claimant})`
                   } AS total
              FROM campaigns AS c
              JOIN campaign_documents AS d ON d.campaign_key = c.key
              JOIN campaign_live AS l ON l.campaign_key = c.key
             WHERE c.public_id = ${publicId}`,
      );
      if (campaign === undefined) return null;
      const claims =
        page.limit === 0
          ? []
          : await queryRows<ActivityClaimRow>(
              db,
              sql`SELECT claimant, floor(extract(epoch FROM claimed_at))::bigint::text AS block_timestamp, tx_hash, incentive_position
                    FROM claims
                   WHERE campaign_key = ${campaign.key} ${claimant === undefined ? sql`` : sql`AND claimant = ${claimant}`}
                   ORDER BY claimed_at DESC, id DESC
                   LIMIT ${page.limit} OFFSET ${page.offset}`,
            );
      // The campaign's incentives as the list shows them, live totals filled in: each event names the one it paid.
      const { incentives } = JSON.parse(withLiveFields(campaign.list_item, campaign.live)) as { incentives: unknown[] };
      return { total: campaign.total, claims, incentives };
    },
  };
}

export type ActivityRepository = ReturnType<typeof createActivityRepository>;
