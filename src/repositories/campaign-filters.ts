import { type SQL, sql } from 'drizzle-orm';

/**
 * The campaign filters of `GET /campaigns` as SQL conditions on `campaigns AS c`, shared by
 * the campaign list and the trending list. Values arrive validated and normalised (lowercase).
 */
export interface TokenFilter {
  chainId: number;
  address: string;
  /** `<chain>:<address>:collection`: the action steps target this contract, rather than an incentive paying it. */
  collection: boolean;
}

export interface CampaignFilters {
  budgetAccounts?: string[];
  owner?: string;
  autocampaignId?: string;
  chainId?: number;
  /** Only with `chainId` (the route enforces it). */
  targetContract?: string;
  tokens?: TokenFilter[];
  distributionChannels?: string[];
  /** Hide campaigns paying a token off the whitelist. */
  tokenWhitelist: boolean;
  /** true: made from an action template; false: custom. */
  actionTemplateOnly?: boolean;
  /** Only campaigns active at this instant. */
  activeAt?: Date;
}

/**
 * Started, not ended and budget left at `now` (src/db/sql/campaign_is_active_at.sql, which the
 * planner inlines): never NULL, so `NOT isActiveAt(...)` is its complement.
 */
export const isActiveAt = (now: Date): SQL =>
  sql`campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, ${now})`;

export function campaignFilterConditions(filters: CampaignFilters): SQL[] {
  const conditions: SQL[] = [];
  if (filters.budgetAccounts?.length) conditions.push(sql`c.budget = ANY(${sql.param(filters.budgetAccounts)}::text[])`);
  if (filters.owner !== undefined) conditions.push(sql`c.owner = ${filters.owner}`);
  if (filters.autocampaignId !== undefined) conditions.push(sql`c.autocampaign_id = ${filters.autocampaignId}`);
  if (filters.chainId !== undefined) conditions.push(sql`c.chain_id = ${filters.chainId}`);
  if (filters.targetContract !== undefined && filters.chainId !== undefined) {
    conditions.push(sql`EXISTS (SELECT 1 FROM action_steps AS s
      WHERE s.campaign_key = c.key AND s.chain_id = ${filters.chainId} AND s.target_contract = ${filters.targetContract})`);
  }
  if (filters.tokens?.length) conditions.push(tokenCondition(filters.tokens));
  if (filters.distributionChannels?.length) {
    conditions.push(sql`c.distribution_channels && ${sql.param(filters.distributionChannels)}::text[]`);
  }
  if (filters.tokenWhitelist) conditions.push(sql`c.pays_only_whitelisted_tokens`);
  if (filters.actionTemplateOnly !== undefined) {
    conditions.push(filters.actionTemplateOnly ? sql`c.action_template_id IS NOT NULL` : sql`c.action_template_id IS NULL`);
  }
  if (filters.activeAt !== undefined) conditions.push(isActiveAt(filters.activeAt));
  return conditions;
}

/**
 * The filters as a text, equal for equal filters: whether `activeAt` is set, not the instant. (A
 * replacer, not `{ ...filters, activeAt }`: a literal that starts with a spread and goes on makes a
 * new V8 hidden class per call, which lives in the old generation; see docs/design.md.)
 */
export function filtersKey(filters: CampaignFilters): string {
  return JSON.stringify(filters, (key, value: unknown) => (key === 'activeAt' ? value !== undefined : value));
}

/** Whether `filters` filter by nothing but the token whitelist (on or off): the default list's case. */
export function onlyWhitelistFilter(filters: CampaignFilters): boolean {
  return Object.entries(filters).every(([name, value]) => name === 'tokenWhitelist' || value === undefined);
}

/** `WHERE` over the conditions, or nothing. */
export function whereClause(conditions: SQL[]): SQL {
  return conditions.length === 0 ? sql`` : sql`WHERE ${sql.join(conditions, sql` AND `)}`;
}

/** Several entries match any of them: an incentive paying one of the tokens, or a step targeting one of the collections. */
function tokenCondition(tokens: TokenFilter[]): SQL {
  const pairs = (entries: TokenFilter[]) => ({
    chains: sql.param(entries.map((entry) => entry.chainId)),
    addresses: sql.param(entries.map((entry) => entry.address)),
  });
  const alternatives: SQL[] = [];
  const paying = tokens.filter((token) => !token.collection);
  if (paying.length === 1) {
    // One token, the common case, as plain comparisons: the planner then sees how many incentives pay it.
    const [token] = paying as [TokenFilter];
    alternatives.push(sql`EXISTS (SELECT 1 FROM incentives AS i
      WHERE i.campaign_key = c.key AND i.asset_address = ${token.address} AND c.chain_id = ${token.chainId})`);
  } else if (paying.length > 1) {
    const { chains, addresses } = pairs(paying);
    alternatives.push(sql`EXISTS (SELECT 1 FROM incentives AS i
      JOIN unnest(${chains}::integer[], ${addresses}::text[]) AS f(chain_id, address) ON f.address = i.asset_address
      WHERE i.campaign_key = c.key AND f.chain_id = c.chain_id)`);
  }
  const collections = tokens.filter((token) => token.collection);
  if (collections.length > 0) {
    const { chains, addresses } = pairs(collections);
    alternatives.push(sql`EXISTS (SELECT 1 FROM action_steps AS s
      JOIN unnest(${chains}::integer[], ${addresses}::text[]) AS f(chain_id, address)
        ON f.chain_id = s.chain_id AND f.address = s.target_contract
      WHERE s.campaign_key = c.key)`);
  }
  return sql`(${sql.join(alternatives, sql` OR `)})`;
}
