import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import type { UserProfile } from '../schemas/profile.js';
import { type ClaimDayRun, describeStreak } from './claim-streak.js';

interface ProfileRow {
  score: number;
  ranking: number;
  eth_earned: string;
  last_claim_at: string | null;
  latest_runs: ClaimDayRun[];
}

/**
 * One statement reads everything the profile needs. The user's claims are read once, by a range
 * scan of claims_claimant_campaign_idx (claimant, campaign_key, claimed_at), never the whole table; the rank counts
 * higher scores on users_score_idx. Sums stay `numeric` and leave PostgreSQL as text, so wei
 * totals of any length arrive exact. Days are UTC days whatever the session's time zone.
 */
const PROFILE_QUERY = (userId: string) => sql`
  WITH caller AS (
    SELECT address, score FROM users WHERE id = ${userId}
  ),
  caller_claims AS MATERIALIZED (
    SELECT claimed_at, eth_value_wei FROM claims WHERE claimant = (SELECT address FROM caller)
  ),
  claim_days AS (
    SELECT DISTINCT (claimed_at AT TIME ZONE 'UTC')::date AS day FROM caller_claims
  ),
  latest_runs AS (
    -- Consecutive days share the same day minus row number: the classic gaps-and-islands grouping.
    SELECT max(day) AS last_day, count(*)::int AS days
      FROM (SELECT day, day - (row_number() OVER (ORDER BY day))::int AS run FROM claim_days) AS numbered
     GROUP BY run
     ORDER BY last_day DESC
     LIMIT 2
  )
  SELECT caller.score,
         (SELECT count(*)::int + 1 FROM users WHERE users.score > caller.score) AS ranking,
         (SELECT coalesce(sum(eth_value_wei), 0)::text FROM caller_claims) AS eth_earned,
         (SELECT to_char(max(claimed_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM caller_claims)
           AS last_claim_at,
         (SELECT coalesce(json_agg(json_build_object('lastDay', to_char(last_day, 'YYYY-MM-DD'), 'days', days)
                                   ORDER BY last_day DESC), '[]'::json)
            FROM latest_runs) AS latest_runs
    FROM caller`;

export function createProfileRepository(db: Database) {
  return {
    /** The user's profile as of `now`, or null when there is no such user. */
    async getProfile(userId: string, now: Date): Promise<UserProfile | null> {
      const [row] = await queryRows<ProfileRow>(db, PROFILE_QUERY(userId));
      if (!row) return null;
      return {
        ethEarned: row.eth_earned,
        score: row.score,
        streak: describeStreak(row.latest_runs, row.last_claim_at === null ? null : new Date(row.last_claim_at), now),
        ranking: row.ranking,
      };
    },
  };
}

export type ProfileRepository = ReturnType<typeof createProfileRepository>;
