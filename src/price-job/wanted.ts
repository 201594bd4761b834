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
  /** The assets of the waiting claims, and the native token of each of their chains. */
  tokens: TokenRef[];
  claims: number;
}

/**
 * Hours with claims waiting for a price (claims.value_pending), the newest first: live data before
 * a backfill's history. At most `limit` hours, and only those `skip` does not name.
 */
export async function waitingHours(database: DatabaseHandle, limit: number, skip: (hour: Date) => boolean): Promise<WaitingHour[]> {
  const rows = await queryRows<{ hour: string; chain_id: number; asset: string; claims: number }>(
    database.db,
    sql`SELECT date_trunc('hour', c.claimed_at AT TIME ZONE 'UTC')::text AS hour, c.chain_id, i.asset_address AS asset, count(*)::int AS claims
          FROM claims AS c
          JOIN incentives AS i ON i.campaign_key = c.campaign_key AND i.position = c.incentive_position
         WHERE c.value_pending AND i.asset_address IS NOT NULL
         GROUP BY 1, 2, 3
         ORDER BY 1 DESC`,
  );
  const hours = new Map<string, WaitingHour>();
  for (const row of rows) {
    let waiting = hours.get(row.hour);
    if (!waiting) {
      const hour = new Date(`${row.hour.replace(' ', 'T')}Z`);
      if (skip(hour)) continue;
      if (hours.size === limit) break;
      waiting = { hour, tokens: [], claims: 0 };
      hours.set(row.hour, waiting);
    }
    waiting.claims += row.claims;
    waiting.tokens.push({ chainId: row.chain_id, address: row.asset });
    if (!waiting.tokens.some((token) => token.chainId === row.chain_id && token.address === NATIVE_TOKEN_ADDRESS)) {
      waiting.tokens.push({ chainId: row.chain_id, address: NATIVE_TOKEN_ADDRESS });
    }
  }
  return [...hours.values()];
}

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
