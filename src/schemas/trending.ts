import { type Static, Type } from '@sinclair/typebox';
import { ACTION_TEMPLATE_CATEGORIES } from '../db/schema.js';
import { CampaignFilterQuery } from './campaigns.js';
import { Address, CampaignId, ChainId, DateTime, PaginationQuery, UnixSecondsString } from './common.js';
import { TokenMetadata } from './incentives.js';
import { Nullable, ref, StringEnum } from './typebox.js';

/** `GET /reward-kit/trending` (description "Trending entry", decisions section 4). */

export const TRENDING_PERIODS = ['1h', '24h'] as const;
export const TRENDING_STATUSES = ['active', 'claimable', 'claimed'] as const;
export const ACCESS_STATUSES = ['allowed', 'denied', 'not-allowed'] as const;

const DecimalString = (description: string) =>
  Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description, examples: ['1250.50'] });

export const TrendingIncentive = Type.Object(
  {
    type: Type.String({ description: 'The incentive variant', examples: ['ERC20Incentive'] }),
    assetAddress: Type.Unsafe<string>({
      ...ref(Address),
      description: 'The token paid; the allow list for AllowListIncentive, the points contract for PointsIncentive',
    }),
    rewardPercentage: Type.Number({ minimum: 0, maximum: 100, description: 'Share of the budget (or claim limit) already claimed, in percent' }),
    rebatePercentage: Type.Number({ minimum: 0, maximum: 100, description: 'Rebate of the criteria variants, 0 otherwise' }),
    rewardAmount: Type.String({
      pattern: '^[0-9]+$',
      description:
        'The most one claim pays, in base units: the fixed reward (CGDA: the initial reward), maxReward for the ' +
        'criteria variants, the remaining balance for ERC20VariableIncentive, 1 for AllowListIncentive',
    }),
    rewardAmountFormatted: DecimalString('rewardAmount divided by 10^decimals, exact (18 decimals assumed for an unknown token)'),
    maxReward: Type.String({ pattern: '^[0-9]+$', description: 'Maximum reward per claim, in base units' }),
    maxRewardUsdValue: Type.Number({ minimum: 0, description: 'maxReward in USD at the token price (0 without a price)' }),
    rewardUsdValue: Type.Number({ minimum: 0, description: 'rewardAmount in USD at the token price (0 without a price)' }),
    tokenSymbol: Nullable(Type.String()),
    tokenImageUri: Nullable(Type.String()),
    metadata: Nullable(ref(TokenMetadata)),
  },
  { $id: 'TrendingIncentive', additionalProperties: false, description: 'An incentive, flattened for display.' },
);

export const ActionTemplate = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    projectId: Type.String({ format: 'uuid' }),
    actionType: Type.String({ examples: ['mint'] }),
    projectImage: Type.String(),
    description: Type.String(),
    category: StringEnum(ACTION_TEMPLATE_CATEGORIES),
  },
  { $id: 'ActionTemplate', additionalProperties: false, description: 'The action template a campaign was made from.' },
);

export const ClaimSignature = Type.Object(
  {
    claimant: ref(Address),
    incentiveId: Type.Integer({ minimum: 0, description: 'Position of the incentive in the campaign' }),
    signature: Type.String({ description: "The validator's signature over the claim payload" }),
    referrer: ref(Address),
  },
  { $id: 'ClaimSignature', additionalProperties: false, description: "The claimant's unused claim signature." },
);

const nullableNumber = (description: string) => Nullable(Type.Number({ description }));

export const ActionTokenMetadata = Type.Object(
  {
    tokenSymbol: Type.String(),
    tokenContract: ref(Address),
    chainId: ChainId,
    tokenImage: Type.String(),
    decimals: Type.Integer({ minimum: 0 }),
    marketCap: nullableNumber('USD'),
    priceChange24Hr: nullableNumber('Percent'),
    volume24Hr: nullableNumber('USD'),
    priceUsd: nullableNumber('USD'),
    holders: nullableNumber('Number of holders'),
  },
  { $id: 'ActionTokenMetadata', additionalProperties: false, description: 'Market data of the token a swap action trades.' },
);

export const TrendingEntry = Type.Object(
  {
    id: ref(CampaignId),
    chainId: ChainId,
    incentives: Type.Array(ref(TrendingIncentive)),
    actionTemplate: Nullable(ref(ActionTemplate)),
    status: StringEnum(TRENDING_STATUSES, {
      description: '`claimed`: claimantAddress has claimed; `claimable`: it holds an unused claim signature; `active` otherwise',
    }),
    txHash: Type.String(),
    campaignName: Nullable(Type.String()),
    nftImageUri: Nullable(Type.String()),
    nftName: Nullable(Type.String()),
    tokenImageUri: Nullable(Type.String()),
    blockTimestamp: UnixSecondsString,
    projectUrl: Nullable(Type.String()),
    startTime: Nullable(DateTime),
    endTime: Nullable(DateTime),
    claimCount: Type.Integer({ minimum: 0, description: 'Claims of the campaign, all time' }),
    totalBudget: DecimalString('Budget of the priced token incentives in USD, 2 decimals'),
    rewardsDistributed: DecimalString('USD value of every claim so far, 2 decimals'),
    signature: Nullable(ref(ClaimSignature)),
    accessStatus: Nullable(
      StringEnum(ACCESS_STATUSES, { description: "claimantAddress's access under the allow list; null without claimantAddress" }),
    ),
    actionTokenMetadata: Type.Optional(
      Nullable(ref(ActionTokenMetadata), { description: 'Only with includeTokenMetadata=true, for swap actions' }),
    ),
    verificationLevel: Nullable(Type.String()),
    usdDistributed24Hr: Type.Number({ minimum: 0, description: 'USD claimed in the 24 hours before the request' }),
    usdDistributed1Hr: Type.Number({ minimum: 0, description: 'USD claimed in the hour before the request' }),
  },
  { $id: 'TrendingEntry', additionalProperties: false, description: 'A campaign trending by claimed volume.' },
);
export type TrendingEntry = Static<typeof TrendingEntry>;

export const TrendingList = Type.Object(
  { trendingCampaigns: Type.Array(ref(TrendingEntry)) },
  { $id: 'TrendingList', additionalProperties: false },
);
export type TrendingList = Static<typeof TrendingList>;

const ActionTypeList = (description: string) =>
  Type.Optional(
    Type.Array(
      Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9-]+$', errorMessage: "must be an action type: lowercase letters, digits or '-'" }),
      { description, examples: [['swap', 'mint']] },
    ),
  );

export const TrendingQuery = Type.Object(
  {
    ...PaginationQuery,
    ...CampaignFilterQuery,
    sortBy: Type.Optional(StringEnum(TRENDING_PERIODS, { default: '24h', description: 'The period ranked by USD claimed' })),
    creatorAddress: Type.Optional(Type.Unsafe<string>({ ...ref(Address), description: 'Campaigns deployed by this address' })),
    claimantAddress: Type.Optional(
      Type.Unsafe<string>({ ...ref(Address), description: 'Reports status, accessStatus and signature for this address' }),
    ),
    actionType: ActionTypeList("Only campaigns whose action template's action type is one of these, comma-separated"),
    excludeActionType: ActionTypeList("Leave out campaigns whose action template's action type is one of these"),
    includeTokenMetadata: Type.Optional(Type.Boolean({ default: false, description: 'Add actionTokenMetadata to swap campaigns' })),
  },
  { additionalProperties: false, dependencies: { targetContract: ['chainId'] } },
);
export type TrendingQuery = Static<typeof TrendingQuery>;
