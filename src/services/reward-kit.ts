import type { RewardKitRepository, RewardSort, RewardStatus } from '../repositories/reward-kit.repository.js';
import type { TrendingFilters } from '../repositories/trending.repository.js';
import { onlyWhitelistFilter } from '../repositories/campaign-filters.js';
import { entityTag } from '../entity-tag.js';
import type { PageRequest } from '../schemas/common.js';
import { MAX_REWARD_CLAIMS, type Reward, type RewardList, type RewardProfile } from '../schemas/reward-kit.js';
import { microsToNumber, parseMicros } from './amounts.js';
import { describeEntries, type EntryTextDeps, inOrder, writeEntry } from './entry-texts.js';
import { type JsonBuffer, JsonBytes } from '../json/json-bytes.js';
import { type ProfileCache, listedVolumes } from './profile-cache.js';
import type { EntryOptions, EntryVolume } from './trending-entries.js';

/**
 * The reward-kit operations (docs/public-api.md). A reward is a trending entry: its claim volumes
 * come from the in-memory claim windows at the request's instant, its totals from the incentives'
 * maintained counters; no request aggregates the claims of a campaign. Answers are UTF-8 JSON
 * assembled from the entries' kept bytes and their per-request fields (entry-texts.ts).
 */
export interface RewardKitDeps extends EntryTextDeps {
  rewardKit: RewardKitRepository;
}

/** The most entries each list of GET /reward-kit holds: every answer is bounded. */
export const MAX_PROFILE_LIST = 100;

export interface RewardListRequest extends EntryOptions {
  status: RewardStatus;
  filters: TrendingFilters;
  sort: RewardSort;
  page: PageRequest;
  now: Date;
}

export async function listRewards(deps: RewardKitDeps, request: RewardListRequest): Promise<JsonBuffer<RewardList>> {
  // The page with its versions, and the claim volumes at the request's instant, side by side.
  const [versions, view] = await Promise.all([
    deps.rewardKit.listRewardVersions(request.status, request.claimant, request.filters, request.sort, request.page, request.now),
    deps.windows.at(request.now),
  ]);
  const keys = versions.map((version) => version.key);
  const entries = inOrder(keys, await describeEntries(deps, keys, request, request.now, (key) => view.volume(key), versions));
  return new JsonBytes().text('{"campaigns":').array(entries, writeEntry).text('}').toBuffer();
}

export interface RewardProfileRequest {
  claimant: string;
  filters: TrendingFilters;
  includeTokenMetadata: boolean;
  now: Date;
}

export interface RewardProfileAnswer {
  body: JsonBuffer<RewardProfile>;
  /** The body's entity tag, when known without hashing it again (a kept answer's). */
  etag: string | undefined;
}

export interface RewardProfileDeps extends RewardKitDeps {
  profiles: ProfileCache;
}

/**
 * GET /reward-kit. A profile filtered by nothing but the token whitelist (what a wallet asks) is
 * kept (profile-cache.ts) and served again while its state, its clock window and its campaigns'
 * volumes are unchanged; any difference builds it again.
 */
export async function rewardProfile(deps: RewardProfileDeps, request: RewardProfileRequest): Promise<RewardProfileAnswer> {
  const cacheKey = onlyWhitelistFilter(request.filters)
    ? `${request.claimant} ${request.filters.tokenWhitelist} ${request.includeTokenMetadata}`
    : undefined;
  if (cacheKey !== undefined) {
    const kept = deps.profiles.candidate(cacheKey, request.now);
    if (kept !== undefined) {
      const [current, view] = await Promise.all([
        deps.rewardKit.checkKeptProfile(request.claimant, kept.keys, kept.snapshot),
        deps.windows.at(request.now),
      ]);
      if (!current.claimantChanged && current.state === kept.state && sameVolumes(kept.volumes, listedVolumes(kept.keys, view))) {
        deps.profiles.counted('reused');
        deps.profiles.touch(cacheKey);
        return { body: kept.body, etag: kept.etag };
      }
    }
    deps.profiles.counted('missed');
  }

  const [found, view] = await Promise.all([
    deps.rewardKit.findProfile(request.claimant, request.filters, MAX_PROFILE_LIST, request.now),
    deps.windows.at(request.now),
  ]);
  const keys = [...found.claimed, ...found.claimable, ...found.active];
  // The volumes the entries show, read once (the windows move on while entries are built): a kept
  // copy is compared with these.
  const volumes = listedVolumes(keys, view);
  const volumeAt = new Map(keys.map((key, index) => [key, index]));
  const volumeOf = (key: number): EntryVolume => {
    const index = volumeAt.get(key)!;
    return { usdMicros: (window) => volumes[index * 2 + (window === '24h' ? 0 : 1)]! };
  };
  const options = { claimant: request.claimant, includeTokenMetadata: request.includeTokenMetadata };
  // One description of the three lists' campaigns, whatever the lists hold.
  const described = await describeEntries(deps, keys, options, request.now, volumeOf, found.versions);
  // What each unused signature would pay: its incentive's reward in USD, as the entry shows it.
  let claimableUsd = 0;
  for (const signature of found.unusedSignatures) {
    if (signature.position !== null) claimableUsd += described.get(signature.key)?.rewardUsd[signature.position] ?? 0;
  }
  const totals: Pick<RewardProfile, 'totalClaimedAmountUsd' | 'totalClaimableAmountUsd'> = {
    totalClaimedAmountUsd: microsToNumber(parseMicros(found.claimedUsd)),
    totalClaimableAmountUsd: Math.round(claimableUsd * 1e6) / 1e6,
  };
  const body = new JsonBytes()
    .text('{"activeCampaigns":')
    .array(inOrder(found.active, described), writeEntry)
    .text(',"claimedCampaigns":')
    .array(inOrder(found.claimed, described), writeEntry)
    .text(',"claimableCampaigns":')
    .array(inOrder(found.claimable, described), writeEntry)
    .text(`,${JSON.stringify(totals).slice(1)}`)
    .toBuffer<RewardProfile>();
  if (cacheKey === undefined || found.kept === undefined) return { body, etag: undefined };
  const etag = entityTag(body);
  deps.profiles.set(cacheKey, {
    state: found.kept.state,
    snapshot: found.kept.snapshot,
    builtAt: request.now.getTime(),
    validUntil: found.kept.validUntilMs,
    keys,
    volumes,
    body,
    etag,
  });
  return { body, etag };
}

function sameVolumes(kept: Float64Array, now: Float64Array): boolean {
  if (kept.length !== now.length) return false;
  for (let index = 0; index < kept.length; index++) if (kept[index] !== now[index]) return false;
  return true;
}

export interface RewardRequest {
  publicId: string;
  address?: string;
  includeTokenMetadata: boolean;
  now: Date;
}

export async function getReward(deps: RewardKitDeps, request: RewardRequest): Promise<JsonBuffer<Reward> | null> {
  const found = await deps.rewardKit.findReward(request.publicId, MAX_REWARD_CLAIMS, request.address);
  if (found === null) return null;
  const options = { claimant: request.address, includeTokenMetadata: request.includeTokenMetadata };
  const campaign = (await describeEntries(deps, [found.key], options, request.now)).get(found.key);
  if (campaign === undefined) return null;
  const rest: Omit<Reward, 'campaign'> = {
    totalClaims: found.totalClaims,
    claims: found.claims.map((claim) => ({ address: claim.claimant, txHash: claim.tx_hash, timestamp: claim.claimed_at })),
    status: campaign.status,
    ...(found.addressTxHash === null ? {} : { txHash: found.addressTxHash }),
    ...(campaign.accessStatus === null ? {} : { accessStatus: campaign.accessStatus }),
    verificationLevel: campaign.verificationLevel,
  };
  const json = new JsonBytes().text('{"campaign":');
  writeEntry(campaign, json);
  return json.text(`,${JSON.stringify(rest).slice(1)}`).toBuffer();
}
