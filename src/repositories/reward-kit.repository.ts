import { type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import { limitOffset } from './paging.js';
import type { PageRequest } from '../schemas/common.js';
import { isActiveAt, onlyWhitelistFilter, whereClause } from './campaign-filters.js';
import { mayAccess } from './claimant-access.js';
import { type EntryVersionRow, entryFilterConditions, type TrendingFilters } from './trending.repository.js';

export type RewardStatus = 'active' | 'claimed' | 'claimable';
export type RewardSort = 'active' | 'recently-deployed';

/** One claim of a reward's claim list. */
export interface RewardClaimRow {
  claimant: string;
  tx_hash: string;
  claimed_at: string;
}

/**
 * Which campaigns the reward-kit operations show, as campaign keys in order: the entries
 * themselves are described by the trending repository. Lists read the campaign indexes or, for a
 * claimant's claimed and claimable rewards, first that claimant's own claims or signatures (one
 * index range each), never the claims of everyone.
 */
export function createRewardKitRepository(db: Database) {
  return {
    /**
     * A page of rewards for GET /reward-kit/campaigns, in order: each campaign's entry version and
     * `claimant`'s standing (trending_entry_versions()), read with the page in one statement.
     */
    async listRewardVersions(
      status: RewardStatus,
      claimant: string | undefined,
      filters: TrendingFilters,
      sort: RewardSort,
      page: PageRequest,
      now: Date,
    ): Promise<EntryVersionRow[]> {
      if (page.limit === 0) return [];
      const keys = rewardsQuery(status, claimant, filters, sort, page, now);
      return queryRows<EntryVersionRow>(
        db,
        sql`SELECT * FROM trending_entry_versions(ARRAY(${keys}), ${claimant ?? null}::text)`,
        { planPerValue: claimant !== undefined },
      );
    },

    /**
     * GET /reward-kit's three lists (keys, most recent first, at most `limit` each), the incentive
     * each unused signature names, and the USD value of all the claimant's claims; for a profile
     * filtered by nothing but the token whitelist, also the lists' entry versions and the claimant's
     * standing (`versions`), all from one call of reward_profile().
     */
    async findProfile(claimant: string, filters: TrendingFilters, limit: number, now: Date): Promise<ProfileRows> {
      if (onlyWhitelistFilter(filters)) return profileInOneCall(db, claimant, filters.tokenWhitelist, limit, now);
      // Named statements, planned once per connection: each list reads the claimant's own claims or
      // signatures through their index whatever the claimant, so one generic plan serves all. Planned
      // per request, their planning was a large part of the profile's PostgreSQL time.
      const [claimed, claimable, active, totals] = await Promise.all([
        queryRows<{ key: number }>(db, rewardsQuery('claimed', claimant, filters, 'latest', { limit, offset: 0 }, now)),
        queryRows<{ key: number }>(db, rewardsQuery('claimable', claimant, filters, 'latest', { limit, offset: 0 }, now)),
        queryRows<{ key: number }>(db, rewardsQuery('active', claimant, filters, 'recently-deployed', { limit, offset: 0 }, now)),
        queryRows<{ usd: string }>(db, sql`SELECT coalesce(sum(usd_value), 0)::text AS usd FROM claims WHERE claimant = ${claimant}`),
      ]);
      const signatures = await queryRows<{ key: number; position: number | null }>(
        db,
        sql`SELECT campaign_key AS key, incentive_position(campaign_key, incentive_id) AS position FROM claim_signatures
             WHERE claimant = ${claimant} AND NOT used AND campaign_key = ANY(${sql.param(claimable.map((row) => row.key))}::integer[])`,
      );
      return {
        claimed: claimed.map((row) => row.key),
        claimable: claimable.map((row) => row.key),
        active: active.map((row) => row.key),
        unusedSignatures: signatures,
        claimedUsd: totals[0]?.usd ?? '0',
        versions: undefined,
        kept: undefined,
      };
    },

    /**
     * Whether a kept profile of `claimant` listing `keys`, read in snapshot `snapshot`, is still what
     * the database would give: the lists' state (reward_profile_state()) as it is now, to compare
     * with the kept one, and whether the claimant's own rows changed since (claimant_changed_since()).
     */
    async checkKeptProfile(claimant: string, keys: number[], snapshot: string): Promise<{ state: string; claimantChanged: boolean }> {
      const [row] = await queryRows<{ state: string; claimant_changed: boolean }>(
        db,
        sql`SELECT reward_profile_state(${sql.param(keys)}::integer[]) AS state,
                   claimant_changed_since(${claimant}, ${snapshot}::pg_snapshot) AS claimant_changed`,
      );
      return { state: row!.state, claimantChanged: row!.claimant_changed };
    },

    /**
     * The campaign by public ID with its claim count, newest claims, and `address`'s latest claim
     * transaction. A raffle draw is no claim: neither listed nor `address`'s claim.
     */
    async findReward(publicId: string, claimLimit: number, address: string | undefined) {
      const [campaign] = await queryRows<{ key: number; total_claims: number; address_tx: string | null }>(
        db,
        sql`SELECT c.key,
                   (SELECT coalesce(sum(i.total_claims), 0)::integer FROM incentives AS i WHERE i.campaign_key = c.key) AS total_claims,
                   ${
                     address === undefined
                       ? sql`NULL`
                       : sql`(SELECT w.tx_hash FROM claims AS w WHERE w.claimant = ${address} AND w.campaign_key = c.key AND NOT w.draw
                              ORDER BY w.claimed_at DESC, w.id DESC LIMIT 1)`
                   } AS address_tx
              FROM campaigns AS c WHERE c.public_id = ${publicId}`,
      );
      if (campaign === undefined) return null;
      const claims = await queryRows<RewardClaimRow>(
        db,
        sql`SELECT claimant, tx_hash, iso_utc(claimed_at) AS claimed_at FROM claims
             WHERE campaign_key = ${campaign.key} AND NOT draw ORDER BY claimed_at DESC, id DESC LIMIT ${claimLimit}`,
      );
      return { key: campaign.key, totalClaims: campaign.total_claims, claims, addressTxHash: campaign.address_tx };
    },
  };
}

export type RewardKitRepository = ReturnType<typeof createRewardKitRepository>;

/** What GET /reward-kit is made of: the three lists' keys in order, the unused signatures on claimable campaigns, the claims' USD. */
export interface ProfileRows {
  claimed: number[];
  claimable: number[];
  active: number[];
  /** The campaign and incentive position (incentive_position(); null: an incentive it does not list) of each unused signature. */
  unusedSignatures: { key: number; position: number | null }[];
  claimedUsd: string;
  /** The listed campaigns' entry versions and the claimant's standing, when read with the lists. */
  versions: EntryVersionRow[] | undefined;
  /** What a kept copy of the answer is checked against (src/services/profile-cache.ts), when read with the lists. */
  kept: { state: string; snapshot: string; validUntilMs: number | null } | undefined;
}

type ProfileRow = EntryVersionRow & {
  list: 'totals' | 'claimed' | 'claimable' | 'active' | 'signature';
  claimed_usd: string | null;
  state: string | null;
  snapshot: string | null;
  valid_until_ms: number | null;
};

/** The unfiltered profile (src/db/sql/reward_profile.sql): one round trip, plans kept per server connection. */
async function profileInOneCall(db: Database, claimant: string, whitelistedOnly: boolean, limit: number, now: Date): Promise<ProfileRows> {
  const rows = await queryRows<ProfileRow>(db, sql`SELECT * FROM reward_profile(${claimant}, ${now}, ${whitelistedOnly}, ${limit})`);
  const versions: EntryVersionRow[] = [];
  const profile: ProfileRows = { claimed: [], claimable: [], active: [], unusedSignatures: [], claimedUsd: '0', versions, kept: undefined };
  for (const { list, claimed_usd, state, snapshot, valid_until_ms, ...version } of rows) {
    if (list === 'totals') {
      profile.claimedUsd = claimed_usd ?? '0';
      profile.kept = { state: state!, snapshot: snapshot!, validUntilMs: valid_until_ms };
    } else if (list === 'signature') profile.unusedSignatures.push({ key: version.key, position: version.signature_incentive_id });
    else {
      profile[list].push(version.key);
      versions.push(version);
    }
  }
  return profile;
}

/** The claimant's claimed campaigns with their latest claim, from its own claims only (claims_claimant_campaign_idx). */
const claimedBy = (claimant: string) =>
  sql`SELECT campaign_key, max(claimed_at) AS latest FROM claims WHERE claimant = ${claimant} GROUP BY campaign_key`;
/** The claimant's campaigns with an unused signature and its newest one (claim_signatures_unused_idx). */
const signedFor = (claimant: string) =>
  sql`SELECT campaign_key, max(id) AS latest FROM claim_signatures WHERE claimant = ${claimant} AND NOT used GROUP BY campaign_key`;

/**
 * Keys of one page of rewards. `latest` orders a claimant's claimed or claimable rewards by its
 * latest claim or signature (GET /reward-kit); `active` puts active rewards first, then newest;
 * every order ends on the public ID, so pages never overlap.
 */
function rewardsQuery(
  status: RewardStatus,
  claimant: string | undefined,
  filters: TrendingFilters,
  sort: RewardSort | 'latest',
  page: PageRequest,
  now: Date,
): SQL {
  const conditions = entryFilterConditions(filters);
  // NULLS LAST as in the campaign indexes (drizzle writes DESC NULLS LAST), so the order is read from them.
  const newest = sql`c.block_timestamp DESC NULLS LAST, c.public_id`;
  const paging = limitOffset(page.limit, page.offset);
  const templates = sql`LEFT JOIN action_templates AS t ON t.id = c.action_template_id`;
  if (status === 'active' || claimant === undefined) {
    conditions.push(isActiveAt(now));
    if (claimant !== undefined) {
      conditions.push(
        sql`c.key NOT IN (SELECT campaign_key FROM claims WHERE claimant = ${claimant})`,
        sql`c.key NOT IN (SELECT campaign_key FROM claim_signatures WHERE claimant = ${claimant} AND NOT used)`,
        mayAccess(claimant),
      );
    }
    // Every listed reward is active, so "active first" is newest first: the index order.
    return sql`SELECT c.key FROM campaigns AS c ${templates} ${whereClause(conditions)} ORDER BY ${newest} ${paging}`;
  }
  if (status === 'claimable') conditions.push(isActiveAt(now));
  const order =
    sort === 'latest'
      ? sql`mine.latest DESC, c.public_id`
      : sort === 'active'
        ? sql`${isActiveAt(now)} DESC, ${newest}`
        : newest;
  return sql`WITH mine AS MATERIALIZED (${status === 'claimed' ? claimedBy(claimant) : signedFor(claimant)})
             SELECT c.key FROM mine JOIN campaigns AS c ON c.key = mine.campaign_key ${templates}
             ${whereClause(conditions)} ORDER BY ${order} ${paging}`;
}
