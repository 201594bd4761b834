import type { ClaimDayRun } from '../repositories/profile.repository.js';
import type { Streak } from '../schemas/profile.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A streak survives the day after its last claim day; it ends at the midnight (UTC) that follows. */
const expiryOf = (run: ClaimDayRun) => new Date(Date.parse(`${run.lastDay}T00:00:00.000Z`) + 2 * DAY_MS);

/**
 * The streak as the profile reports it, from the user's two latest runs (latest first).
 *
 * Active while `now` is before the latest run's expiry, that is while the last claim day is
 * today or yesterday (UTC): `value` is the run's length and `nextExpirationTime` its expiry.
 * Once expired the streak is gone: `value` 0, no next expiry, and `lastExpirationTime` is when it
 * ended. `lastExpirationTime` of an active streak is when the run before it ended.
 */
export function describeStreak(latestRuns: ClaimDayRun[], lastClaimAt: Date | null, now: Date): Streak {
  const [latest, previous] = latestRuns;
  if (!latest || !lastClaimAt) {
    return { value: 0, status: 'inactive', lastExpirationTime: null, nextExpirationTime: null, lastCompletionTime: null };
  }
  const expiry = expiryOf(latest);
  const lastCompletionTime = lastClaimAt.toISOString();
  if (now.getTime() < expiry.getTime()) {
    return {
      value: latest.days,
      status: 'active',
      lastExpirationTime: previous ? expiryOf(previous).toISOString() : null,
      nextExpirationTime: expiry.toISOString(),
      lastCompletionTime,
    };
  }
  return {
    value: 0,
    status: 'inactive',
    lastExpirationTime: expiry.toISOString(),
    nextExpirationTime: null,
    lastCompletionTime,
  };
}
