import type { RewardKitRepository, RewardSort, RewardStatus } from '../repositories/reward-kit.repository.js';
import type { TrendingFilters, TrendingRepository } from '../repositories/trending.repository.js';
import type { PageRequest } from '../schemas/common.js';
import { MAX_REWARD_CLAIMS, type Reward, type RewardProfile } from '../schemas/reward-kit.js';
import type { TrendingEntry } from '../schemas/trending.js';
import { microsToNumber, parseMicros } from './amounts.js';
import type { ClaimWindows } from './claim-windows.js';
import { type EntryOptions, toEntry } from './trending.js';

/**
 * The reward-kit operations (decisions section 9). A reward is a trending entry: its claim volumes
 * come from the in-memory claim windows at the request's instant, its totals from the incentives'
 * maintained counters; no request aggregates the claims of a campaign.
 */
export interface RewardKitDeps {
  windows: ClaimWindows;
  trending: TrendingRepository;
  rewardKit: RewardKitRepository;
}

/** The most entries each list of GET /reward-kit holds (decisions section 9). */
export const MAX_PROFILE_LIST = 100;

async function describe(deps: RewardKitDeps, keys: number[], options: EntryOptions, now: Date): Promise<TrendingEntry[]> {
  if (keys.length === 0) return [];
  const [view, rows] = await Promise.all([deps.windows.at(now), deps.trending.describeCampaigns(keys, options.claimant)]);
  return rows.map((row) => toEntry(row, view.volume(row.key), options));
}

export interface RewardListRequest extends EntryOptions {
  status: RewardStatus;
  filters: TrendingFilters;
  sort: RewardSort;
  page: PageRequest;
  now: Date;
}

export async function listRewards(deps: RewardKitDeps, request: RewardListRequest): Promise<TrendingEntry[]> {
  const keys = await deps.rewardKit.listRewardKeys(request.status, request.claimant, request.filters, request.sort, request.page, request.now);
  return describe(deps, keys, request, request.now);
}

export interface RewardProfileRequest {
  claimant: string;
  filters: TrendingFilters;
  includeTokenMetadata: boolean;
  now: Date;
}

export async function rewardProfile(deps: RewardKitDeps, request: RewardProfileRequest): Promise<RewardProfile> {
  const found = await deps.rewardKit.findProfile(request.claimant, request.filters, MAX_PROFILE_LIST, request.now);
  const options = { claimant: request.claimant, includeTokenMetadata: request.includeTokenMetadata };
  // One description of the three lists' campaigns: one query, whatever the lists hold.
  const all = await describe(deps, [...found.claimed, ...found.claimable, ...found.active], options, request.now);
  const claimedCampaigns = all.slice(0, found.claimed.length);
  const claimableCampaigns = all.slice(found.claimed.length, found.claimed.length + found.claimable.length);
  const activeCampaigns = all.slice(found.claimed.length + found.claimable.length);
  // What each unused signature would pay: its incentive's reward in USD, as the entry shows it.
  const entryByKey = new Map(found.claimable.map((key, index) => [key, claimableCampaigns[index]]));
  let claimableUsd = 0;
  for (const signature of found.unusedSignatures) {
    claimableUsd += entryByKey.get(signature.key)?.incentives[signature.incentive_id]?.rewardUsdValue ?? 0;
  }
  return {
    activeCampaigns,
    claimedCampaigns,
    claimableCampaigns,
    totalClaimedAmountUsd: microsToNumber(parseMicros(found.claimedUsd)),
    totalClaimableAmountUsd: Math.round(claimableUsd * 1e6) / 1e6,
  };
}

export interface RewardRequest {
  publicId: string;
  address?: string;
  includeTokenMetadata: boolean;
  now: Date;
}

export async function getReward(deps: RewardKitDeps, request: RewardRequest): Promise<Reward | null> {
  const found = await deps.rewardKit.findReward(request.publicId, MAX_REWARD_CLAIMS, request.address);
  if (found === null) return null;
  const [campaign] = await describe(deps, [found.key], { claimant: request.address, includeTokenMetadata: request.includeTokenMetadata }, request.now);
  if (campaign === undefined) return null;
  return {
    campaign,
    totalClaims: found.totalClaims,
    claims: found.claims.map((claim) => ({ address: claim.claimant, txHash: claim.tx_hash, timestamp: claim.claimed_at })),
    status: campaign.status,
    ...(found.addressTxHash === null ? {} : { txHash: found.addressTxHash }),
    ...(campaign.accessStatus === null ? {} : { accessStatus: campaign.accessStatus }),
    verificationLevel: campaign.verificationLevel,
  };
}
