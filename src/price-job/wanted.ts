import { sql } from 'drizzle-orm';
import { type DatabaseHandle, queryRows } from '../db/client.js';
import { NATIVE_TOKEN_ADDRESS, type TokenRef } from '../prices/source.js';

/**
 * What the price job asks its sources for, read from the database: the tokens whose current price
 * matters, and the hours in which claims wait for a price.
 */

/**
 * Every token the service knows (the tokens table holds each incentive asset the indexer read, and
 * what imports gave), and the native token of each of their chains and of `chains` (ETH values).
 */
export async function tokensToQuote(database: DatabaseHandle, chains: readonly number[]): Promise<TokenRef[]> {
  const rows = await queryRows<{ chain_id: number; address: string }>(
    database.db,
    sql`SELECT chain_id, address FROM tokens
        UNION
        SELECT chain_id, ${NATIVE_TOKEN_ADDRESS}
          FROM (SELECT DISTINCT chain_id FROM tokens
                UNION SELECT unnest(${`{${chains.join(',')}}`}::int[])) AS chains
        ORDER BY 1, 2`,
  );
  return rows.map((row) => ({ chainId: row.chain_id, address: row.address }));
}

export interface WaitingHour {
  /** The start of the hour (UTC) the claims are in. */
  hour: Date;
  /** The earliest of them. */
  earliest: Date;
  /** The assets of the waiting claims, and the native token of each of their chains. */
  tokens: TokenRef[];
  claims: number;
}

export interface WaitingHours {
  /** At most the limit asked for, newest first. */
  hours: WaitingHour[];
  /**
   * Where the next look continues (strictly before it), or null when this one reached the oldest
   * waiting claim: the next look starts over at the newest.
   */
  next: Date | null;
}

/**
 * Hours with claims waiting for a price (claims.value_pending), the newest first, from before
 * `before` (null: from the newest): at most `limit` hours, only those `skip` does not name, found
 * among at most `maxClaims` waiting claims, so that a look costs the same however many claims wait
 * for prices no source has.
 */
export async function waitingHours(
  database: DatabaseHandle,
  options: { before: Date | null; limit: number; maxClaims: number; skip: (hour: Date) => boolean },
): Promise<WaitingHours> {
  const { before, limit, maxClaims, skip } = options;
  const rows = await queryRows<{ hour: string; chain_id: number; asset: string; claims: number; earliest: Date }>(
    database.db,
    sql`SELECT date_trunc('hour', w.claimed_at AT TIME ZONE 'UTC')::text AS hour, w.chain_id, i.asset_address AS asset, count(*)::int AS claims,
               min(w.claimed_at) AS earliest
          FROM (SELECT c.claimed_at, c.chain_id, c.campaign_key, c.incentive_position FROM claims AS c
                 WHERE c.value_pending AND c.claimed_at < ${before ?? new Date('9999-01-01T00:00:00Z')}
                 ORDER BY c.claimed_at DESC LIMIT ${maxClaims}) AS w
          JOIN incentives AS i ON i.campaign_key = w.campaign_key AND i.position = w.incentive_position
         WHERE i.asset_address IS NOT NULL
         GROUP BY 1, 2, 3
         ORDER BY 1 DESC`,
  );
  const toDate = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
  const hours = new Map<string, WaitingHour>();
  for (const row of rows) {
    let waiting = hours.get(row.hour);
    if (!waiting) {
      const hour = toDate(row.hour);
      if (skip(hour)) continue;
      // The limit reached: the next look continues from this hour on (it is not looked at now).
      if (hours.size === limit) return { hours: [...hours.values()], next: new Date(hour.getTime() + HOUR_MS) };
      waiting = { hour, earliest: new Date(row.earliest), tokens: [], claims: 0 };
      hours.set(row.hour, waiting);
    }
    waiting.claims += row.claims;
    if (new Date(row.earliest) < waiting.earliest) waiting.earliest = new Date(row.earliest);
    waiting.tokens.push({ chainId: row.chain_id, address: row.asset });
    if (!waiting.tokens.some((token) => token.chainId === row.chain_id && token.address === NATIVE_TOKEN_ADDRESS)) {
      waiting.tokens.push({ chainId: row.chain_id, address: NATIVE_TOKEN_ADDRESS });
    }
  }
  const scanned = rows.reduce((sum, row) => sum + row.claims, 0);
  const oldest = rows.at(-1);
  if (oldest === undefined || scanned < maxClaims) return { hours: [...hours.values()], next: null };
  // More claims wait further back; the oldest hour seen may hold more of them than were seen, so the
  // next look takes it again, unless it was all that this look saw (then it moves past it).
  const oldestHour = toDate(oldest.hour);
  const again = new Date(oldestHour.getTime() + HOUR_MS);
  return { hours: [...hours.values()], next: before !== null && again.getTime() >= before.getTime() ? oldestHour : again };
}

const HOUR_MS = 3_600_000;

export async function claimsWaiting(database: DatabaseHandle): Promise<number> {
  const [row] = await queryRows<{ waiting: number }>(database.db, sql`SELECT count(*)::int AS waiting FROM claims WHERE value_pending`);
  return row?.waiting ?? 0;
}

/** The time of each token's newest price in the history, for the age metric. */
export async function newestPrices(database: DatabaseHandle, tokens: readonly TokenRef[]): Promise<{ chainId: number; address: string; at: Date }[]> {
  if (tokens.length === 0) return [];
  const rows = await queryRows<{ chain_id: number; address: string; at: Date }>(
    database.db,
    sql`SELECT t.chain_id, t.address, n.at
          FROM jsonb_to_recordset(${JSON.stringify(tokens.map((token) => ({ chain_id: token.chainId, address: token.address })))}::jsonb)
               AS t(chain_id int, address text)
          CROSS JOIN LATERAL (SELECT p.at FROM token_prices AS p WHERE p.chain_id = t.chain_id AND p.address = t.address ORDER BY p.at DESC LIMIT 1) AS n`,
  );
  return rows.map((row) => ({ chainId: row.chain_id, address: row.address, at: new Date(row.at) }));
}
