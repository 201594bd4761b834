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

export interface TrendingIncentiveRow {
  campaign_key: number;
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

export function createTrendingRepository(db: Database) {
  return {
    /** Which of `keys` pass the filters and are active at `now`. */
    async filterCampaigns(keys: number[], filters: TrendingFilters, now: Date): Promise<Set<number>> {
      const conditions: SQL[] = [
        sql`c.key = ANY(${sql.param(keys)}::integer[])`,
        ...campaignFilterConditions(filters),
        isActiveAt(now),
      ];
      if (filters.creator !== undefined) conditions.push(sql`c.creator = ${filters.creator}`);
      if (filters.actionTypes?.length) {
        conditions.push(sql`t.action_type = ANY(${sql.param(filters.actionTypes)}::text[])`);
      }
      if (filters.excludedActionTypes?.length) {
        conditions.push(sql`(t.action_type IS NULL OR NOT t.action_type = ANY(${sql.param(filters.excludedActionTypes)}::text[]))`);
      }
      const rows = await queryRows<{ key: number }>(
        db,
        sql`SELECT c.key FROM campaigns AS c LEFT JOIN action_templates AS t ON t.id = c.action_template_id
            ${whereClause(conditions)}`,
      );
      return new Set(rows.map((row) => row.key));
    },

    /** What a trending entry shows of each campaign, and of `claimant`'s standing in it. */
    async findCampaigns(keys: number[], claimant: string | undefined): Promise<TrendingCampaignRow[]> {
      const forClaimant = (expression: SQL) => (claimant === undefined ? sql`NULL` : expression);
      return queryRows<TrendingCampaignRow>(
        db,
        sql`SELECT c.key, c.public_id, c.chain_id, c.tx_hash, c.campaign_name, c.nft_image_uri, c.nft_name, c.token_image_uri,
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
                   k.price_usd::float8 AS action_token_price, k.holders::float8 AS action_token_holders
              FROM campaigns AS c
              LEFT JOIN action_templates AS t ON t.id = c.action_template_id
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
              ) AS s ON true
             WHERE c.key = ANY(${sql.param(keys)}::integer[])`,
      );
    },

    /** The incentives of the campaigns with their tokens, in campaign and position order. */
    async findIncentives(keys: number[]): Promise<TrendingIncentiveRow[]> {
      return queryRows<TrendingIncentiveRow>(
        db,
        sql`SELECT i.campaign_key, i.type, i.params, i.total_claims::text AS total_claims,
                   i.total_amount_claimed::text AS total_amount_claimed, i.claim_limit::text AS claim_limit,
                   i.total_budget::text AS total_budget,
                   o.id::text AS token_id, o.chain_id AS token_chain_id, o.address AS token_address, o.decimals AS token_decimals,
                   o.name AS token_name, o.symbol AS token_symbol, o.image_uri AS token_image_uri, o.price_usd::text AS token_price_usd
              FROM incentives AS i
              JOIN campaigns AS c ON c.key = i.campaign_key
              LEFT JOIN tokens AS o ON o.chain_id = c.chain_id AND o.address = i.asset_address
             WHERE i.campaign_key = ANY(${sql.param(keys)}::integer[])
             ORDER BY i.campaign_key, i.position`,
      );
    },
  };
}

export type TrendingRepository = ReturnType<typeof createTrendingRepository>;
