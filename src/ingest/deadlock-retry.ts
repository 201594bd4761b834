import { sql } from 'drizzle-orm';
import type { BulkSession } from '../db/client.js';
import { isDeadlock } from '../db/errors.js';

/**
 * Two writers that lock the same rows in opposite order (two imports of the same records, listed in
 * opposite order) wait for each other until PostgreSQL fails a statement of one of them (40P01).
 * That writer's rows are locked again in the other's order when it writes them all again: rolled back
 * to a savepoint taken before its first row, which releases every row lock taken since, it lets the
 * other one commit, then waits behind it where they meet. What came before the savepoint (the staged
 * input, the per-chain locks, taken first and in order by every writer) stays.
 *
 * Serialization failures (40001) are not retried here: the write path runs at READ COMMITTED, where
 * a writer does not meet them, and at a stricter level only a new transaction would clear one.
 */

/** How many times the write is tried in all before the deadlock is the caller's. */
export const DEADLOCK_ATTEMPTS = 5;

export async function retryingDeadlocks<T>(
  session: BulkSession,
  write: () => Promise<T>,
  onRetry?: (attempt: number, error: Error) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await session.query(sql`SAVEPOINT before_write`);
    try {
      const result = await write();
      await session.query(sql`RELEASE SAVEPOINT before_write`);
      return result;
    } catch (error) {
      if (!isDeadlock(error) || attempt >= DEADLOCK_ATTEMPTS) throw error;
      await session.query(sql`ROLLBACK TO SAVEPOINT before_write`);
      onRetry?.(attempt, error as Error);
      // A pause of random length, longer each time: writers that keep meeting stop meeting at once.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * 2 ** attempt));
    }
  }
}
