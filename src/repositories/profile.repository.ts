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

export function createProfileRepository(db: Database) {
  return {
    /** The user's profile as of `now`, or null when there is no such user. */
    async getProfile(userId: string, now: Date): Promise<UserProfile | null> {
      // Everything in one function call (src/db/sql/user_profile.sql), whose plan the server keeps.
      const [row] = await queryRows<ProfileRow>(db, sql`SELECT * FROM user_profile(${userId}::uuid)`);
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
