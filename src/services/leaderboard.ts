import { type BoardEntry, type BoardPage, CLAIMANT_WINDOWS, type ClaimantWindow, type ClaimWindows } from '../claim-volumes/index.js';
import { ADDRESS_ID, decodeCursor, nextPage } from '../keyset-cursor.js';
import type {
  LeaderboardRepository,
  LeaderboardRequest,
  LeaderboardRow,
  LeaderboardRows,
  LeaderboardScope,
} from '../repositories/leaderboard.repository.js';
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
  /** The list's other parameters, as the request gave them, for the next page's link. */
  params: Record<string, string>;
}

/** A leaderboard answer and the `Link` header of its next page, if one follows. */
export interface LeaderboardPage {
  body: Leaderboard;
  link: string | undefined;
}

/**
 * One page of a leaderboard. All campaigns' claims over a window the claim volumes keep per claimant
 * (CLAIMANT_WINDOWS) are ranked from memory, exact at the request's instant like every claim volume;
 * a campaign's, a filtered one or a longer window are ranked by the database. Both rank alike, and a
 * cursor of one continues in the other. A cursor is bound to the scope, window and metric it was
 * given for (`scopeKey`), and continues after its position in the order of the moment.
 */
export async function leaderboardPage(
  leaderboards: LeaderboardRepository,
  claimWindows: ClaimWindows,
  scope: LeaderboardScope,
  scopeKey: string,
  ask: LeaderboardAsk,
): Promise<LeaderboardPage | null> {
  const { window, by, page, cursor } = ask;
  const cursorScope = `leaderboard:${scopeKey}:${window}:${by}`;
  const after = cursor === undefined ? undefined : decodeCursor(cursorScope, cursor, ADDRESS_ID);
  const request = {
    by,
    limit: page.limit,
    page: after === undefined ? { offset: page.offset } : { after },
    count: ask.includeTotal,
    ...(ask.address === undefined ? {} : { address: ask.address }),
  };
  const span = LEADERBOARD_WINDOW_MS[window];
  const startOf = (at: Date) => (span === null ? null : new Date(at.getTime() - span));
  let now = ask.now;
  let found: LeaderboardRows | null;
  if (inMemory(scope, window)) {
    const view = await claimWindows.at(now);
    now = new Date(view.instantMs);
    found = boardRows(view.claimantBoard(window, request), by);
  } else {
    found = await leaderboards.findLeaderboard(scope, { ...request, from: startOf(now), to: now });
  }
  if (found === null) return null;
  const from = startOf(now);
  const last = found.entries.at(-1);
  const lastPosition = last === undefined ? after : { key: last.key, id: last.address };
  const { cursor: nextCursor, link } = nextPage(cursorScope, {
    more: found.more,
    last: lastPosition && [lastPosition.key, lastPosition.id],
    limit: page.limit,
    cursor,
    params: ask.params,
  });
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
    link,
  };
}

const entryOf = ({ rank, address, claims, usd }: LeaderboardRow): LeaderboardEntry => ({ rank, address, claims, usd });

/** Whether the claim volumes rank this leaderboard: all campaigns, unfiltered, over a window they keep per claimant. */
function inMemory(scope: LeaderboardScope, window: LeaderboardWindow): window is ClaimantWindow {
  if ('campaign' in scope || scope.chainId !== undefined || scope.owner !== undefined || scope.tokens !== undefined) return false;
  return (CLAIMANT_WINDOWS as readonly string[]).includes(window);
}

/** A page from memory as the repository gives one: USD in dollars, the metric as the cursor's key. */
function boardRows(board: BoardPage, by: LeaderboardRequest['by']): LeaderboardRows {
  const rowOf = (entry: BoardEntry): LeaderboardRow => ({
    rank: entry.rank,
    address: entry.address,
    claims: entry.claims,
    usd: entry.usdMicros / 1e6,
    key: String(by === 'usd' ? entry.usdMicros : entry.claims),
  });
  return {
    entries: board.entries.map(rowOf),
    more: board.more,
    ...(board.total === undefined ? {} : { total: board.total }),
    ...(board.addressEntry === undefined ? {} : { addressEntry: rowOf(board.addressEntry) }),
  };
}
