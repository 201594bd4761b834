import { type Static, Type } from '@sinclair/typebox';
import { CampaignFilterQuery } from './campaigns.js';
import { Address, CampaignId, PaginationQuery } from './common.js';
import { ACCESS_STATUSES, TRENDING_STATUSES, TrendingEntry, TrendingQuery } from './trending.js';
import { Nullable, ref, StringEnum } from './typebox.js';

/**
 * The reward-kit operations of the public API (docs/public-api.md): rewards
 * are trending entries, so a reward widget reads one shape everywhere.
 */

export const REWARD_SORTS = ['active', 'recently-deployed'] as const;

/** The filters every reward-kit operation shares with trending: the campaign filters and trending's own. */
const rewardFilters = {
  ...CampaignFilterQuery,
  creatorAddress: TrendingQuery.properties.creatorAddress,
  actionType: TrendingQuery.properties.actionType,
  excludeActionType: TrendingQuery.properties.excludeActionType,
  includeTokenMetadata: TrendingQuery.properties.includeTokenMetadata,
  sortBy: Type.Optional(
    StringEnum(REWARD_SORTS, {
      default: 'active',
      description: '`active`: active rewards first, then newest; `recently-deployed`: newest first (ties on `id`)',
    }),
  ),
};

export const RewardListQuery = Type.Object(
  {
    ...PaginationQuery,
    ...rewardFilters,
    claimantAddress: Type.Optional(
      Type.Unsafe<string>({ ...ref(Address), description: 'The user whose rewards to list; status, accessStatus and signature describe it' }),
    ),
    status: Type.Optional(
      StringEnum(TRENDING_STATUSES, {
        description:
          '`active`: active rewards (with claimantAddress: that it may access and has neither claimed nor holds a signature for); ' +
          '`claimable`: it holds an unused claim signature; `claimed`: it has claimed. Default `claimable` with claimantAddress, ' +
          '`active` without; `claimable` and `claimed` need claimantAddress.',
      }),
    ),
  },
  { additionalProperties: false, dependencies: { targetContract: ['chainId'] } },
);
export type RewardListQuery = Static<typeof RewardListQuery>;

export const RewardList = Type.Object(
  { campaigns: Type.Array(ref(TrendingEntry)) },
  { $id: 'RewardList', additionalProperties: false, description: 'One page of rewards.' },
);
export type RewardList = Static<typeof RewardList>;

export const RewardProfileQuery = Type.Object(
  {
    ...rewardFilters,
    claimantAddress: Type.Unsafe<string>({ ...ref(Address), description: 'The user whose profile this is' }),
  },
  { additionalProperties: false, dependencies: { targetContract: ['chainId'] } },
);
export type RewardProfileQuery = Static<typeof RewardProfileQuery>;

export const RewardProfile = Type.Object(
  {
    activeCampaigns: Type.Array(ref(TrendingEntry), {
      maxItems: 100,
      description: 'Active rewards the user may access and has neither claimed nor holds a signature for, newest first',
    }),
    claimedCampaigns: Type.Array(ref(TrendingEntry), { maxItems: 100, description: 'Rewards the user claimed, latest claim first' }),
    claimableCampaigns: Type.Array(ref(TrendingEntry), {
      maxItems: 100,
      description: 'Active rewards the user holds an unused claim signature for, latest signature first',
    }),
    totalClaimedAmountUsd: Type.Number({ minimum: 0, description: "USD value of all the user's claims" }),
    totalClaimableAmountUsd: Type.Number({
      minimum: 0,
      description: "USD value its unused signatures on the listed claimable rewards would pay (each incentive's rewardUsdValue)",
    }),
  },
  { $id: 'RewardProfile', additionalProperties: false, description: "A user's rewards." },
);
export type RewardProfile = Static<typeof RewardProfile>;

export const RewardQuery = Type.Object(
  {
    address: Type.Optional(Type.Unsafe<string>({ ...ref(Address), description: "Adds this claimant's status, accessStatus and txHash" })),
    includeTokenMetadata: TrendingQuery.properties.includeTokenMetadata,
  },
  { additionalProperties: false },
);
export type RewardQuery = Static<typeof RewardQuery>;

export const RewardParams = Type.Object({ id: ref(CampaignId) }, { additionalProperties: false });

export const MAX_REWARD_CLAIMS = 100;

export const Reward = Type.Object(
  {
    campaign: ref(TrendingEntry),
    totalClaims: Type.Integer({ minimum: 0, description: 'Claims of the reward, all time' }),
    claims: Type.Array(
      Type.Object(
        {
          address: ref(Address),
          txHash: Type.String(),
          timestamp: Type.String({ format: 'date-time', description: 'ISO 8601 UTC' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_REWARD_CLAIMS, description: 'The newest 100 claims, newest first' },
    ),
    status: StringEnum(TRENDING_STATUSES, {
      description: "For address: `claimed`, `claimable` (holds an unused signature) or `active`; `active` without address",
    }),
    txHash: Type.Optional(Type.String({ description: "With address: the address's latest claim transaction, when it has one" })),
    accessStatus: Type.Optional(StringEnum(ACCESS_STATUSES, { description: "With address: its access under the allow list" })),
    verificationLevel: Type.Optional(Nullable(Type.String({ description: 'Verification the project requires' }))),
  },
  { $id: 'Reward', additionalProperties: false, description: 'One reward with its claims.' },
);
export type Reward = Static<typeof Reward>;
