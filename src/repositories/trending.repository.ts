import { type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import { type CampaignFilters, campaignFilterConditions, isActiveAt, whereClause } from './campaign-filters.js';

export interface TrendingFilters extends CampaignFilters {
  creator?: string;
  /** Action types of the campaign's action template; a campaign without one has none. */
  actionTypes?: string[];
  excludedActionTypes?: string[];
}

export interface TrendingCampaignRow {
  key: number;
  public_id: string;
  chain_id: number;
  tx_hash: string;
  campaign_name: string | null;
  nft_image_uri: string | null;
  nft_name: string | null;
  token_image_uri: string | null;
  block_timestamp: string;
  start_time: string | null;
  end_time: string | null;
  template_id: string | null;
  project_id: string | null;
  action_type: string | null;
  project_image: string | null;
  template_description: string | null;
  category: string | null;
  project_url: string | null;
  verification_level: string | null;
  claim_count: number;
  total_budget_usd: string;
  distributed_usd: string;
  allow_list_type: string | null;
  /** Claimant-specific, null without a claimant. */
  claimant_claimed: boolean | null;
  claimant_listed: boolean | null;
  claimant_member: boolean | null;
  signature_incentive_id: number | null;
  signature: string | null;
  signature_referrer: string | null;
  /** The swap action's token, when known. */
  action_token_symbol: string | null;
  action_token_address: string | null;
  action_token_image: string | null;
  action_token_decimals: number | null;
  action_token_market_cap: number | null;
  action_token_price_change: number | null;
  action_token_volume: number | null;
  action_token_price: number | null;
  action_token_holders: number | null;
}

/** One incentive of a trending campaign, with the token it pays when the service knows it. */
export interface TrendingIncentiveRow {
  position: number;
  type: string;
  params: Record<string, unknown>;
  total_claims: string;
  total_amount_claimed: string;
  claim_limit: string | null;
  total_budget: string | null;
  token_id: string | null;
  token_chain_id: number | null;
  token_address: string | null;
  token_decimals: number | null;
  token_name: string | null;
  token_symbol: string | null;
  token_image_uri: string | null;
  token_price_usd: string | null;
}

/** A campaign on the page, with its incentives in position order. */
export interface TrendingPageRow extends TrendingCampaignRow {
  incentives: TrendingIncentiveRow[];
}

/** Which of the passing campaigns a query returns: `take` of them after the first `skip`. */
export interface PageSlice {
  skip: number;
  take: number;
}

export function createTrendingRepository(db: Database) {
  return {
    /**
     * Of `ranked` (campaign keys, best first), the campaigns that pass the filters and are active at
     * `now`: how many there are, and the `slice` of them in rank order with everything their entries
     * show, `claimant`'s standing included. One query, whatever the page size.
     */
    async findRankedPage(
      ranked: number[],
      filters: TrendingFilters,
      now: Date,
      slice: PageSlice,
      claimant: string | undefined,
    ): Promise<{ passing: number; rows: TrendingPageRow[] }> {
      const rows = await queryRows<TrendingPageRow & { passing: number }>(
        db,
        sql`WITH passing AS MATERIALIZED (
              SELECT r.key, r.rank
                FROM unnest(${sql.param(ranked)}::integer[]) WITH ORDINALITY AS r(key, rank)
                JOIN campaigns AS c ON c.key = r.key
                LEFT JOIN action_templates AS t ON t.id = c.action_template_id
              ${whereClause(filterConditions(filters, now))}
            ), page AS (
              SELECT key, rank FROM passing ORDER BY rank OFFSET ${slice.skip} LIMIT ${slice.take}
            )
            SELECT n.passing, ${campaignColumns(claimant)}, ${incentivesColumn}
              FROM (SELECT count(*)::integer AS passing FROM passing) AS n
              LEFT JOIN page ON true
              LEFT JOIN campaigns AS c ON c.key = page.key
              ${campaignJoins(claimant)}
             ORDER BY page.rank`,
      );
      return { passing: rows[0]?.passing ?? 0, rows: rows.filter((row) => row.key !== null) };
    },
  };
}

export type TrendingRepository = ReturnType<typeof createTrendingRepository>;

/** The shared campaign filters, the trending-only ones, and active at `now`, on `campaigns AS c` and its template `t`. */
function filterConditions(filters: TrendingFilters, now: Date): SQL[] {
  const conditions: SQL[] = [...campaignFilterConditions(filters), isActiveAt(now)];
  if (filters.creator !== undefined) conditions.push(sql`c.creator = ${filters.creator}`);
  if (filters.actionTypes?.length) {
    conditions.push(sql`t.action_type = ANY(${sql.param(filters.actionTypes)}::text[])`);
  }
  if (filters.excludedActionTypes?.length) {
    conditions.push(sql`(t.action_type IS NULL OR NOT t.action_type = ANY(${sql.param(filters.excludedActionTypes)}::text[]))`);
  }
  return conditions;
}
/** What a trending entry shows of campaign `c`, and of `claimant`'s standing in it (NULL without one). */
function campaignColumns(claimant: string | undefined): SQL {
  const forClaimant = (expression: SQL) => (claimant === undefined ? sql`NULL` : expression);
  return sql`c.key, c.public_id, c.chain_id, c.tx_hash, c.campaign_name, c.nft_image_uri, c.nft_name, c.token_image_uri,
             c.block_timestamp::text AS block_timestamp, iso_utc(c.start_time) AS start_time, iso_utc(c.end_time) AS end_time,
             t.id::text AS template_id, t.project_id::text AS project_id, t.action_type,
             p.image_uri AS project_image, t.description AS template_description, t.category,
             p.url AS project_url, p.verification_level,
             totals.claim_count, totals.total_budget_usd, totals.distributed_usd,
             a.type AS allow_list_type,
             ${forClaimant(sql`EXISTS (SELECT 1 FROM claims AS w WHERE w.claimant = ${claimant} AND w.campaign_key = c.key)`)}
               AS claimant_claimed,
             ${forClaimant(sql`EXISTS (SELECT 1 FROM allow_list_addresses AS x
                                        WHERE x.allow_list_id = c.allow_list_id AND x.address = ${claimant})`)}
               AS claimant_listed,
             ${forClaimant(sql`EXISTS (SELECT 1 FROM access_list_members AS m
                                        WHERE m.access_list_id = a.access_list_id AND m.address = ${claimant})`)}
               AS claimant_member,
             s.incentive_id AS signature_incentive_id, s.signature, s.referrer AS signature_referrer,
             k.symbol AS action_token_symbol, k.address AS action_token_address, k.image_uri AS action_token_image,
             k.decimals AS action_token_decimals, k.market_cap_usd::float8 AS action_token_market_cap,
             k.price_change_24h_pct::float8 AS action_token_price_change, k.volume_24h_usd::float8 AS action_token_volume,
             k.price_usd::float8 AS action_token_price, k.holders::float8 AS action_token_holders`;
}

/** The tables `campaignColumns` reads besides `campaigns AS c`. */
function campaignJoins(claimant: string | undefined): SQL {
  return sql`LEFT JOIN action_templates AS t ON t.id = c.action_template_id
             LEFT JOIN projects AS p ON p.id = t.project_id
             LEFT JOIN allow_lists AS a ON a.id = c.allow_list_id
             LEFT JOIN tokens AS k ON k.chain_id = c.chain_id AND k.address = c.action_token_address
             LEFT JOIN LATERAL (
               SELECT coalesce(sum(i.total_claims), 0)::integer AS claim_count,
                      coalesce(round(sum(i.total_budget * o.price_usd / 10::numeric ^ o.decimals)
                                       FILTER (WHERE o.price_usd IS NOT NULL AND i.total_budget IS NOT NULL), 2), 0)::numeric(78, 2)::text
                        AS total_budget_usd,
                      coalesce(sum(i.total_usd_claimed), 0)::numeric(78, 2)::text AS distributed_usd
                 FROM incentives AS i
                 LEFT JOIN tokens AS o ON o.chain_id = c.chain_id AND o.address = i.asset_address
                WHERE i.campaign_key = c.key
             ) AS totals ON true
             LEFT JOIN LATERAL (
               SELECT g.incentive_id, g.signature, g.referrer FROM claim_signatures AS g
                WHERE ${claimant === undefined ? sql`false` : sql`g.claimant = ${claimant}`} AND g.campaign_key = c.key AND NOT g.used
                ORDER BY g.id LIMIT 1
             ) AS s ON true`;
}

/** The incentives of campaign `c` with their tokens, as a JSON array in position order (numerics as text). */
const incentivesColumn = sql`(
  SELECT coalesce(json_agg(x ORDER BY x.position), '[]') FROM (
    SELECT i.position, i.type, i.params, i.total_claims::text AS total_claims,
           i.total_amount_claimed::text AS total_amount_claimed, i.claim_limit::text AS claim_limit,
           i.total_budget::text AS total_budget,
           o.id::text AS token_id, o.chain_id AS token_chain_id, o.address AS token_address, o.decimals AS token_decimals,
           o.name AS token_name, o.symbol AS token_symbol, o.image_uri AS token_image_uri, o.price_usd::text AS token_price_usd
      FROM incentives AS i
      LEFT JOIN tokens AS o ON o.chain_id = c.chain_id AND o.address = i.asset_address
     WHERE i.campaign_key = c.key
  ) AS x
) AS incentives`;
