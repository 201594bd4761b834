import { type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import { SharedReads } from '../db/shared-reads.js';
import { limitOffset } from './paging.js';
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
  /** The template's project's slug: what the public API calls `projectId`. */
  project_slug: string | null;
  action_type: string | null;
  project_image: string | null;
  template_description: string | null;
  category: string | null;
  project_url: string | null;
  verification_level: string | null;
  claim_count: number;
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

/** What an entry says about the asker (claimant_standing() in the database), null without one. */
export type ClaimantStanding = Pick<
  TrendingCampaignRow,
  'claimant_claimed' | 'claimant_listed' | 'claimant_member' | 'signature_incentive_id' | 'signature' | 'signature_referrer'
>;

/** A campaign's entry version (trending_entry_versions()) and the claimant's standing in it. */
export type EntryVersionRow = { key: number; version: string } & ClaimantStanding;

/** A campaign on the page, with its incentives in position order. */
export interface TrendingPageRow extends TrendingCampaignRow {
  incentives: TrendingIncentiveRow[];
}

export function createTrendingRepository(db: Database) {
  const firstBatches = new SharedReads<{ passing: number[]; versions: EntryVersionRow[] }>();
  return {
    /**
     * Which of campaigns `keys` pass the filters and are active at `now`, in no particular order
     * (the caller has them ranked). The statement holds only the filters, on `campaigns` by primary
     * key: cheap to plan on every request behind a transaction pooler.
     */
    async passingFilters(keys: number[], filters: TrendingFilters, now: Date): Promise<number[]> {
      if (keys.length === 0) return [];
      const rows = await queryRows<{ key: number }>(
        db,
        sql`SELECT c.key FROM campaigns AS c
             ${filtersActionTypes(filters) ? sql`LEFT JOIN action_templates AS t ON t.id = c.action_template_id` : sql``}
             ${whereClause([sql`c.key = ANY(${sql.param(keys)}::integer[])`, ...filterConditions(filters, now)])}`,
      );
      return rows.map((row) => row.key);
    },

    /**
     * passingFilters and entryVersions in one round trip, for a page that lies within `keys`: which
     * of `keys` pass, in their order, and the versions of the `count` of those after the first
     * `from` (the page), with `claimant`'s standing. Without request filters (the token whitelist
     * aside) this is one call of trending_batch_versions(), whose plan PostgreSQL keeps per server
     * connection also behind a transaction pooler; with them the statement is written here.
     */
    async passingWithVersions(
      keys: number[],
      filters: TrendingFilters,
      now: Date,
      page: { from: number; count: number },
      claimant: string | undefined,
    ): Promise<{ passing: number[]; versions: EntryVersionRow[] }> {
      if (keys.length === 0) return { passing: [], versions: [] };
      // Requests for the same page of the same ranking share one statement (SharedReads): between
      // two claims, concurrent trending requests rank the same campaigns. The answer is read-only.
      const key = `${keys.join(',')} ${JSON.stringify(filters)} ${page.from} ${page.count} ${claimant ?? ''}`;
      return firstBatches.read(key, now.getTime(), async (at) => {
        const instant = new Date(at);
        const statement = onlyTokenWhitelist(filters)
          ? sql`SELECT * FROM trending_batch_versions(${sql.param(keys)}::integer[], ${instant}, ${filters.tokenWhitelist},
                                                      ${page.from}, ${page.count}, ${claimant ?? null}::text)`
          : sql`WITH passing AS MATERIALIZED (
                SELECT r.key, r.ord FROM unnest(${sql.param(keys)}::integer[]) WITH ORDINALITY AS r(key, ord)
                  JOIN campaigns AS c ON c.key = r.key
                  ${filtersActionTypes(filters) ? sql`LEFT JOIN action_templates AS t ON t.id = c.action_template_id` : sql``}
                ${whereClause(filterConditions(filters, instant))})
              SELECT p.key AS passing_key, v.*
                FROM passing AS p
                LEFT JOIN trending_entry_versions(
                  ARRAY(SELECT q.key FROM passing AS q ORDER BY q.ord ${limitOffset(page.count, page.from)}),
                  ${claimant ?? null}::text) AS v ON v.key = p.key
               ORDER BY p.ord`;
        const rows = await queryRows<{ passing_key: number } & Partial<EntryVersionRow>>(db, statement);
        const versions: EntryVersionRow[] = [];
        for (const { passing_key: _, ...version } of rows) {
          if (version.key !== undefined && version.key !== null) versions.push(version as EntryVersionRow);
        }
        return { passing: rows.map((row) => row.passing_key), versions };
      });
    },

    /** Everything the entries of campaigns `keys` show, in that order, `claimant`'s standing included. */
    async describeCampaigns(keys: number[], claimant: string | undefined): Promise<TrendingPageRow[]> {
      if (keys.length === 0) return [];
      const [row] = await queryRows<{ entries: TrendingPageRow[] }>(
        db,
        sql`SELECT trending_entries(${sql.param(keys)}::integer[], ${claimant ?? null}::text) AS entries`,
      );
      return row?.entries ?? [];
    },

    /**
     * For campaigns `keys` that exist, in that order: the version of the rows their entries are
     * built from, and `claimant`'s standing (null columns without one).
     */
    async entryVersions(keys: number[], claimant: string | undefined): Promise<EntryVersionRow[]> {
      if (keys.length === 0) return [];
      return queryRows<EntryVersionRow>(
        db,
        sql`SELECT * FROM trending_entry_versions(${sql.param(keys)}::integer[], ${claimant ?? null}::text)`,
      );
    },
  };
}

export type TrendingRepository = ReturnType<typeof createTrendingRepository>;

/** The shared campaign filters, the trending-only ones, and active at `now`, on `campaigns AS c` and its template `t`. */
function filterConditions(filters: TrendingFilters, now: Date): SQL[] {
  return [...entryFilterConditions(filters), isActiveAt(now)];
}

/** Whether no filter is set but the token whitelist (an empty list sets none, as in entryFilterConditions). */
function onlyTokenWhitelist(filters: TrendingFilters): boolean {
  return Object.entries(filters).every(
    ([name, value]) => name === 'tokenWhitelist' || value === undefined || (Array.isArray(value) && value.length === 0),
  );
}

/**
 * Whether the filters name action types, the only conditions on the template `t`: without them the
 * page's statement leaves the template out, which makes it cheaper to plan.
 */
function filtersActionTypes(filters: TrendingFilters): boolean {
  return Boolean(filters.actionTypes?.length || filters.excludedActionTypes?.length);
}

/** The shared campaign filters and the trending-only ones (creator, action types), on `campaigns AS c` and its template `t`. */
export function entryFilterConditions(filters: TrendingFilters): SQL[] {
  const conditions: SQL[] = campaignFilterConditions(filters);
  if (filters.creator !== undefined) conditions.push(sql`c.creator = ${filters.creator}`);
  if (filters.actionTypes?.length) {
    conditions.push(sql`t.action_type = ANY(${sql.param(filters.actionTypes)}::text[])`);
  }
  if (filters.excludedActionTypes?.length) {
    conditions.push(sql`(t.action_type IS NULL OR NOT t.action_type = ANY(${sql.param(filters.excludedActionTypes)}::text[]))`);
  }
  return conditions;
}
