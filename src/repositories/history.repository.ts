import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import type { HistoryInterval } from '../schemas/history.js';

/** One of the campaign's incentives, with what it has paid since `from` and over the burn window. */
export interface HistoryIncentive {
  position: number;
  token: string | null;
  symbol: string | null;
  decimals: number | null;
  /** The budget as it stands now (on-chain balance plus what it paid), null for unbudgeted variants. */
  budget: string | null;
  /** Everything it has paid, claims and raffle draws. */
  paid: string;
  /** Paid by claims made at or after `from` (those after `to` too). */
  paidSinceFrom: string;
  /** Paid by claims made in the burn window. */
  paidInBurnWindow: string;
}

export interface HistoryRows {
  incentives: HistoryIncentive[];
  /** Per bucket with claims: its start (epoch ms), claims, distinct claimants. */
  counts: [number, number, number][];
  /** Per bucket start and incentive position with claims or draws: amount and USD paid. */
  paid: [number, number, string, number][];
  /** Per bucket start: addresses whose first claim of the campaign is in it. */
  newcomers: [number, number][];
}

export interface HistoryWindow {
  interval: HistoryInterval;
  from: Date;
  to: Date;
  burnFrom: Date;
  now: Date;
}

/**
 * What a campaign's history is made of, in one statement (one snapshot: a claim written meanwhile
 * is in all of it or none): its incentives, and its claims of [from, to) grouped by UTC bucket. The
 * claims are read through claims_campaign_claimed_at_idx from `from` on; a claimant counts as new
 * where no claim of theirs to this campaign comes before their first in the window (one lookup per
 * claimant, through claims_claimant_campaign_idx).
 */
export function createHistoryRepository(db: Database) {
  return {
    async findHistory(publicId: string, { interval, from, to, burnFrom, now }: HistoryWindow): Promise<HistoryRows | null> {
      const bucket = (column: ReturnType<typeof sql>) => sql`(extract(epoch FROM date_trunc(${interval}, ${column}, 'UTC')) * 1000)::float8`;
      const [row] = await queryRows<{ found: boolean; incentives: string; counts: string; paid: string; newcomers: string }>(
        db,
        sql`WITH campaign AS (SELECT c.key, c.chain_id FROM campaigns AS c WHERE c.public_id = ${publicId}),
                 since AS (SELECT w.claimed_at, w.claimant, w.draw, w.amount, w.usd_value, w.incentive_position
                             FROM claims AS w WHERE w.campaign_key = (SELECT key FROM campaign) AND w.claimed_at >= ${from}),
                 win AS (SELECT * FROM since WHERE claimed_at < ${to})
            SELECT EXISTS (SELECT 1 FROM campaign) AS found,
                   (SELECT coalesce(json_agg(json_build_array(
                             i.position, i.asset_address, t.symbol, t.decimals, i.total_budget::text, i.total_amount_claimed::text,
                             (SELECT coalesce(sum(s.amount), 0)::text FROM since AS s WHERE s.incentive_position = i.position),
                             (SELECT coalesce(sum(b.amount), 0)::text FROM claims AS b
                               WHERE b.campaign_key = i.campaign_key AND b.incentive_position = i.position
                                 AND b.claimed_at >= ${burnFrom} AND b.claimed_at < ${now}))
                             ORDER BY i.position), '[]')::text
                      FROM campaign AS c
                      JOIN incentives AS i ON i.campaign_key = c.key
                      LEFT JOIN tokens AS t ON t.chain_id = c.chain_id AND t.address = i.asset_address) AS incentives,
                   (SELECT coalesce(json_agg(json_build_array(g.at, g.claims, g.claimants) ORDER BY g.at), '[]')::text
                      FROM (SELECT ${bucket(sql`claimed_at`)} AS at, count(*) FILTER (WHERE NOT draw) AS claims,
                                   count(DISTINCT claimant) FILTER (WHERE NOT draw) AS claimants
                              FROM win GROUP BY 1) AS g) AS counts,
                   (SELECT coalesce(json_agg(json_build_array(g.at, g.position, g.amount::text, g.usd) ORDER BY g.at, g.position), '[]')::text
                      FROM (SELECT ${bucket(sql`claimed_at`)} AS at, incentive_position AS position, sum(amount) AS amount, sum(usd_value)::float8 AS usd
                              FROM win GROUP BY 1, 2) AS g) AS paid,
                   (SELECT coalesce(json_agg(json_build_array(g.at, g.count) ORDER BY g.at), '[]')::text
                      FROM (SELECT ${bucket(sql`f.first_at`)} AS at, count(*) AS count
                              FROM (SELECT claimant, min(claimed_at) AS first_at FROM win WHERE NOT draw GROUP BY claimant) AS f
                             WHERE NOT EXISTS (SELECT 1 FROM claims AS e
                                                WHERE e.claimant = f.claimant AND e.campaign_key = (SELECT key FROM campaign)
                                                  AND e.claimed_at < f.first_at AND NOT e.draw)
                             GROUP BY 1) AS g) AS newcomers`,
      );
      if (!row?.found) return null;
      type IncentiveRow = [number, string | null, string | null, number | null, string | null, string, string, string];
      return {
        incentives: (JSON.parse(row.incentives) as IncentiveRow[]).map(
          ([position, token, symbol, decimals, budget, paid, paidSinceFrom, paidInBurnWindow]): HistoryIncentive => ({
            position,
            token,
            symbol,
            decimals,
            budget,
            paid,
            paidSinceFrom,
            paidInBurnWindow,
          }),
        ),
        counts: JSON.parse(row.counts) as HistoryRows['counts'],
        paid: JSON.parse(row.paid) as HistoryRows['paid'],
        newcomers: JSON.parse(row.newcomers) as HistoryRows['newcomers'],
      };
    },
  };
}

export type HistoryRepository = ReturnType<typeof createHistoryRepository>;
