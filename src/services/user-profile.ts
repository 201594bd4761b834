import type { ProfileRepository } from '../repositories/profile.repository.js';
import type { UserProfile } from '../schemas/profile.js';
import { describeStreak } from './claim-streak.js';

/** The user's profile as of `now` (GET /users/profile), or null when there is no such user. */
export async function userProfile(profiles: ProfileRepository, userId: string, now: Date): Promise<UserProfile | null> {
  const facts = await profiles.getProfileFacts(userId);
  if (!facts) return null;
  return {
    ethEarned: facts.ethEarned,
    score: facts.score,
    streak: describeStreak(facts.latestRuns, facts.lastClaimAt, now),
    ranking: facts.ranking,
  };
}
