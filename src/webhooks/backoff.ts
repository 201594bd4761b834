/** The first retry's delay; each failure after it doubles it, up to MAX_DELAY_SECONDS. */
const FIRST_DELAY_SECONDS = 5;
const MAX_DELAY_SECONDS = 3600;

/**
 * Seconds until the next attempt after `failures` failed attempts at one message: 5, 10, 20, 40 …
 * up to an hour, each less up to a quarter at random, so that endpoints that failed together
 * (a receiver's outage) do not all come back at the same instant. A Retry-After the receiver sent
 * is honoured instead, up to the same hour.
 */
export function nextAttemptDelaySeconds(failures: number, retryAfterSeconds: number | undefined, random: () => number = Math.random): number {
  if (retryAfterSeconds !== undefined) return Math.min(Math.max(retryAfterSeconds, 1), MAX_DELAY_SECONDS);
  const delay = Math.min(FIRST_DELAY_SECONDS * 2 ** Math.max(failures - 1, 0), MAX_DELAY_SECONDS);
  return delay * (1 - 0.25 * random());
}
