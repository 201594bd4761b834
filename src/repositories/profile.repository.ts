import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';

/** What the database holds of a user's profile; the streak is told from it (src/services/user-profile.ts). */
export interface ProfileFacts {
  score: number;
  ranking: number;
  /** ETH earned by claims, in wei. */
  ethEarned: string;
  lastClaimAt: Date | null;
  /** The user's two latest runs of consecutive UTC claim days, latest first. */
  latestRuns: ClaimDayRun[];
}

/** A run of consecutive UTC days with at least one claim. */
export interface ClaimDayRun {
  /** The run's last day, `YYYY-MM-DD` (UTC). */
  lastDay: string;
  days: number;
}

interface ProfileRow {
  score: number;
  ranking: number;
  eth_earned: string;
  last_claim_at: string | null;
  latest_runs: ClaimDayRun[];
}

export function createProfileRepository(db: Database) {
  return {
    /** The user's profile facts, or null when there is no such user. */
    async getProfileFacts(userId: string): Promise<ProfileFacts | null> {
      // Everything in one function call (src/db/sql/user_profile.sql), whose plan the server keeps.
      const [row] = await queryRows<ProfileRow>(db, sql`SELECT * FROM user_profile(${userId}::uuid)`);
      if (!row) return null;
      return {
        score: row.score,
        ranking: row.ranking,
        ethEarned: row.eth_earned,
        lastClaimAt: row.last_claim_at === null ? null : new Date(row.last_claim_at),
        latestRuns: row.latest_runs,
      };
    },
  };
}

export type ProfileRepository = ReturnType<typeof createProfileRepository>;
