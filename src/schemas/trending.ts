import { type Static, Type } from '@sinclair/typebox';
import { ACTION_TEMPLATE_CATEGORIES } from '../db/schema.js';
import { CampaignFilterQuery } from './campaigns.js';
import { Address, CampaignId, ChainId, ClaimIncentiveId, DateTime, PaginationQuery, UnixSecondsString } from './common.js';
import { TokenMetadata } from './incentives.js';
import { Nullable, ref, StringEnum } from './typebox.js';

/** `GET /reward-kit/trending`: the public API's trending entry, with the choices docs/public-api.md lists. */

export const TRENDING_PERIODS = ['1h', '24h'] as const;
export const TRENDING_STATUSES = ['active', 'claimable', 'claimed'] as const;
export const ACCESS_STATUSES = ['allowed', 'denied', 'not-allowed'] as const;

const IntegerString = (description: string) =>
  Type.String({ pattern: '^(0|[1-9][0-9]*)$', description, examples: ['100000000'] });

const DecimalString = (description: string) =>
  Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description, examples: ['1250.50'] });

export const TrendingIncentive = Type.Object(
  {
    type: Type.String({ description: 'The incentive variant', examples: ['ERC20Incentive'] }),
    assetAddress: Type.Unsafe<string>({
      ...ref(Address),
      description: 'The token paid; the allow list for AllowListIncentive, the points contract for PointsIncentive',
    }),
    rewardPercentage: Type.Optional(
      Type.Number({
        minimum: 0,
        description:
          'For the variable and variable-criteria variants, the share of the signed claim amount the claimant receives, ' +
          'in percent (the `reward` scalar, where 10^18 is 100%; above 100 for a scalar above 10^18), 2 decimals; absent ' +
          'for the fixed-reward variants',
      }),
    ),
    rebatePercentage: Type.Optional(
      Type.Number({ minimum: 0, description: 'Deprecated alias of rewardPercentage: the same value, present when it is' }),
    ),
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
    tokenSymbol: Type.Optional(Type.String({ description: "The token's symbol; absent when the service does not know the token" })),
    tokenImageUri: Type.Optional(Type.String({ description: "The token's image; absent when unknown" })),
    metadata: Nullable(ref(TokenMetadata)),
  },
  { $id: 'TrendingIncentive', additionalProperties: false, description: 'An incentive, flattened for display.' },
);

export const ActionTemplate = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    projectId: Type.String({ description: "The project's slug", examples: ['zora'] }),
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
    incentiveId: ClaimIncentiveId,
    signature: Type.String({ description: "The validator's signature over the claim payload" }),
    referrer: ref(Address),
  },
  { $id: 'ClaimSignature', additionalProperties: false, description: "The claimant's unused claim signature." },
);

/** Optional, not nullable, as the public API has it: unknown market data is absent. */
const marketNumber = (description: string) => Type.Optional(Type.Number({ description }));

export const ActionTokenMetadata = Type.Object(
  {
    tokenSymbol: Type.String(),
    tokenContract: ref(Address),
    chainId: ChainId,
    tokenImage: Type.String(),
    decimals: Type.Integer({ minimum: 0 }),
    marketCap: marketNumber('USD'),
    priceChange24Hr: marketNumber('Percent'),
    volume24Hr: marketNumber('USD'),
    priceUsd: marketNumber('USD'),
    holders: marketNumber('Number of holders'),
  },
  {
    $id: 'ActionTokenMetadata',
    additionalProperties: false,
    description: 'Market data of the token a swap action trades. A figure the service does not know is left out, never null.',
  },
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
    nftImageUri: Type.Optional(Type.String({ description: 'Absent when the campaign has no NFT' })),
    nftName: Type.Optional(Type.String({ description: 'Absent when the campaign has no NFT' })),
    tokenImageUri: Type.Optional(Type.String({ description: "The reward token's image; absent when unknown" })),
    blockTimestamp: UnixSecondsString,
    projectUrl: Type.Optional(Type.String({ description: "The template's project's URL; absent without one" })),
    startTime: Nullable(DateTime),
    endTime: Nullable(DateTime),
    claimCount: Type.Integer({ minimum: 0, description: "Claims of the campaign, all time (a RAFFLE's entries; its draw is no claim)" }),
    totalBudget: IntegerString(
      "Budget of the incentives paying the campaign's reward token (its first ERC-20 incentive's), in that token's " +
        'smallest unit; "0" when no incentive pays an ERC-20 token',
    ),
    rewardsDistributed: IntegerString('Amount those incentives have paid out, in the same unit'),
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
