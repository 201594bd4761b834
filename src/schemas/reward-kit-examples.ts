import { TRENDING_LIST_EXAMPLE } from './activity-examples.js';
import { CAMPAIGN_LIST_ITEM_EXAMPLE } from './campaign-examples.js';
import type { ActivityPage, ExploreList } from './explore.js';
import type { Reward, RewardList, RewardProfile } from './reward-kit.js';

/** Example answers of the reward-kit, explore and activity operations; a contract test validates them. */

const ENTRY = TRENDING_LIST_EXAMPLE.trendingCampaigns[0]!;
const CLAIMANT = '0x5eed00000000000000000000000000000000c0de';

export const REWARD_LIST_EXAMPLE: RewardList = { campaigns: [ENTRY] };

export const REWARD_PROFILE_EXAMPLE: RewardProfile = {
  activeCampaigns: [],
  claimedCampaigns: [],
  claimableCampaigns: [ENTRY],
  totalClaimedAmountUsd: 182.4,
  totalClaimableAmountUsd: 2.5,
};

export const REWARD_EXAMPLE: Reward = {
  campaign: ENTRY,
  totalClaims: 124,
  claims: [
    {
      address: '0x2e8f5c01a7a3d9f2b0a4f6c3d1e2b5a4c7d8e9f0',
      txHash: '0x3f6a1c0b9d2e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c',
      timestamp: '2026-11-20T11:58:03.000Z',
    },
  ],
  status: 'claimable',
  accessStatus: 'allowed',
  verificationLevel: 'verified',
};

export const EXPLORE_EXAMPLE: ExploreList = { campaigns: [CAMPAIGN_LIST_ITEM_EXAMPLE], totalCount: 57 };

export const ACTIVITY_EXAMPLE: ActivityPage = {
  activityEvents: [
    {
      claimant: CLAIMANT,
      blockTimestamp: '1779321683',
      txHash: '0x3f6a1c0b9d2e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c',
      incentives: [CAMPAIGN_LIST_ITEM_EXAMPLE.incentives[0]!],
    },
  ],
  totalActivityCount: 124,
};
