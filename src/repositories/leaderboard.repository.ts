import { type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import type { KeysetPosition } from '../keyset-cursor.js';
import type { LeaderboardMetric } from '../schemas/leaderboard.js';
import { limitOffset } from './paging.js';

/** Which claims a leaderboard ranks: one campaign's, or those of every campaign the filters keep. */
export type LeaderboardScope =
  | { campaign: string }
  | { chainId?: number; owner?: string; tokens?: { chainId: number; address: string }[] };

export interface LeaderboardRequest {
  by: LeaderboardMetric;
  /** Claims made after `from` (none without it) and up to `to` count. */
  from: Date | null;
  to: Date;
  limit: number;
  /** A page by number, or the entries after a cursor's position. */
  page: { offset: number } | { after: KeysetPosition };
  count: boolean;
  address?: string;
}

/** One address's totals; `key` is its metric as an exact integer (claims, or USD in micro-dollars). */
export interface LeaderboardRow {
  rank: number | null;
  address: string;
  claims: number;
  usd: number;
  key: string;
}

export interface LeaderboardRows {
  entries: LeaderboardRow[];
  /** Whether entries follow the page. */
  more: boolean;
  total?: number;
  addressEntry?: LeaderboardRow;
}

/**
 * Leaderboards as one statement (one snapshot): each address with a claim in the window (a raffle
 * draw alone is not one), with its claims and USD over the window,
 * ranked by the metric (`rank()`: ties share a rank, the next skips as many), ordered by the metric
 * then address in binary order, and the page, the total and the asked-for address read from that.
 */
export function createLeaderboardRepository(db: Database) {
  return {
    /** The page, or null when the scope names a campaign that does not exist. */
    async findLeaderboard(scope: LeaderboardScope, request: LeaderboardRequest): Promise<LeaderboardRows | null> {
      const { by, from, to, limit, page, count, address } = request;
      const metric = by === 'usd' ? sql.raw('usd_micros') : sql.raw('claims');
      const afterPosition =
        'after' in page
          ? sql`WHERE ${metric} < ${page.after.key}::bigint OR (${metric} = ${page.after.key}::bigint AND address > ${page.after.id} COLLATE "C")`
          : sql``;
      const offset = 'offset' in page ? page.offset : 0;
      const [row] = await queryRows<{ found: boolean; entries: string; total: number | null; mine: string | null }>(
        db,
        sql`WITH ${scopeClaims(scope, from, to)},
                 board AS (SELECT claimant AS address, count(*) FILTER (WHERE NOT draw)::bigint AS claims,
                                  (sum(usd_value) * 1000000)::bigint AS usd_micros
                             FROM scoped GROUP BY claimant HAVING count(*) FILTER (WHERE NOT draw) > 0),
                 ranked AS (SELECT address, claims, usd_micros, rank() OVER (ORDER BY ${metric} DESC) AS rank FROM board)
            SELECT (SELECT found FROM target) AS found,
                   (SELECT coalesce(json_agg(json_build_array(p.rank, p.address, p.claims, p.usd_micros::text, p.${metric}::text)), '[]')::text
                      FROM (SELECT * FROM ranked ${afterPosition}
                             ORDER BY ${metric} DESC, address COLLATE "C" ${limitOffset(limit + 1, offset)}) AS p) AS entries,
                   ${count ? sql`(SELECT count(*)::integer FROM board)` : sql`NULL::integer`} AS total,
                   ${
                     address === undefined
                       ? sql`NULL::text`
                       : sql`(SELECT json_build_array(r.rank, r.address, r.claims, r.usd_micros::text, r.${metric}::text)::text
                                FROM ranked AS r WHERE r.address = ${address})`
                   } AS mine`,
      );
      if (!row?.found) return null;
      const entries = (JSON.parse(row.entries) as EntryRow[]).map(entryOf);
      const more = entries.length > limit;
      return {
        entries: entries.slice(0, limit),
        more,
        ...(row.total === null ? {} : { total: row.total }),
        ...(address === undefined
          ? {}
          : { addressEntry: row.mine === null ? { rank: null, address, claims: 0, usd: 0, key: '0' } : entryOf(JSON.parse(row.mine) as EntryRow) }),
      };
    },
  };
}

type EntryRow = [number, string, number, string, string];

const entryOf = ([rank, address, claims, usdMicros, key]: EntryRow): LeaderboardRow => ({
  rank,
  address,
  claims,
  usd: Number(usdMicros) / 1e6,
  key,
});

/** `target` (whether the scope exists) and `scoped` (its claims in the window), as WITH items. */
function scopeClaims(scope: LeaderboardScope, from: Date | null, to: Date): SQL {
  const window = sql`w.claimed_at <= ${to} ${from === null ? sql`` : sql`AND w.claimed_at > ${from}`}`;
  if ('campaign' in scope) {
    return sql`target AS (SELECT key, true AS found FROM campaigns WHERE public_id = ${scope.campaign}),
               scoped AS (SELECT w.claimant, w.draw, w.usd_value FROM claims AS w
                           WHERE w.campaign_key = (SELECT key FROM target) AND ${window})`;
  }
  const conditions: SQL[] = [];
  if (scope.chainId !== undefined) conditions.push(sql`c.chain_id = ${scope.chainId}`);
  if (scope.owner !== undefined) conditions.push(sql`c.owner = ${scope.owner}`);
  const ofCampaigns = conditions.length === 0 ? sql`` : sql`AND w.campaign_key IN (SELECT c.key FROM campaigns AS c WHERE ${sql.join(conditions, sql` AND `)})`;
  const ofTokens =
    scope.tokens === undefined
      ? sql``
      : sql`AND EXISTS (SELECT 1 FROM incentives AS i JOIN campaigns AS c ON c.key = i.campaign_key
                         WHERE i.campaign_key = w.campaign_key AND i.position = w.incentive_position
                           AND (c.chain_id, i.asset_address) IN (${sql.join(
                             scope.tokens.map((token) => sql`(${token.chainId}::integer, ${token.address})`),
                             sql`, `,
                           )}))`;
  return sql`target AS (SELECT true AS found),
             scoped AS (SELECT w.claimant, w.draw, w.usd_value FROM claims AS w WHERE ${window} ${ofCampaigns} ${ofTokens})`;
}

export type LeaderboardRepository = ReturnType<typeof createLeaderboardRepository>;
