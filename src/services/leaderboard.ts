import { ADDRESS_ID, decodeCursor, encodeCursor } from '../keyset-cursor.js';
import type { LeaderboardRepository, LeaderboardRow, LeaderboardScope } from '../repositories/leaderboard.repository.js';
import type { PageRequest } from '../schemas/common.js';
import {
  type Leaderboard,
  type LeaderboardEntry,
  type LeaderboardMetric,
  type LeaderboardWindow,
  LEADERBOARD_WINDOW_MS,
} from '../schemas/leaderboard.js';

export interface LeaderboardAsk {
  window: LeaderboardWindow;
  by: LeaderboardMetric;
  page: PageRequest;
  cursor?: string;
  includeTotal: boolean;
  address?: string;
  now: Date;
}

/** A leaderboard answer and the cursor of its next page (null after the last). */
export interface LeaderboardPage {
  body: Leaderboard;
  nextCursor: string | null;
}

/**
 * One page of a leaderboard. A cursor is bound to the scope, window and metric it was given for
 * (`scopeKey`), and continues after its position in the order of the moment.
 */
export async function leaderboardPage(
  leaderboards: LeaderboardRepository,
  scope: LeaderboardScope,
  scopeKey: string,
  ask: LeaderboardAsk,
): Promise<LeaderboardPage | null> {
  const { window, by, page, cursor, now } = ask;
  const cursorScope = `leaderboard:${scopeKey}:${window}:${by}`;
  const after = cursor === undefined ? undefined : decodeCursor(cursorScope, cursor, ADDRESS_ID);
  const span = LEADERBOARD_WINDOW_MS[window];
  const from = span === null ? null : new Date(now.getTime() - span);
  const found = await leaderboards.findLeaderboard(scope, {
    by,
    from,
    to: now,
    limit: page.limit,
    page: after === undefined ? { offset: page.offset } : { after },
    count: ask.includeTotal,
    ...(ask.address === undefined ? {} : { address: ask.address }),
  });
  if (found === null) return null;
  const last = found.entries.at(-1);
  const lastPosition = last === undefined ? after : { key: last.key, id: last.address };
  const nextCursor = found.more && lastPosition !== undefined ? encodeCursor(cursorScope, lastPosition) : page.limit === 0 ? (cursor ?? null) : null;
  return {
    body: {
      ...('campaign' in scope ? { campaignId: scope.campaign } : {}),
      window,
      by,
      from: from === null ? null : from.toISOString(),
      to: now.toISOString(),
      entries: found.entries.map(entryOf),
      ...(found.addressEntry === undefined ? {} : { addressEntry: entryOf(found.addressEntry) }),
      ...(found.total === undefined ? {} : { totalCount: found.total }),
      nextCursor,
    },
    nextCursor,
  };
}

const entryOf = ({ rank, address, claims, usd }: LeaderboardRow): LeaderboardEntry => ({ rank, address, claims, usd });
