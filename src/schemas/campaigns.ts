import { type Static, Type } from '@sinclair/typebox';
import { ALLOW_LIST_TYPES, SIGNATURE_TYPES } from '../db/schema.js';
import { Address, BigIntString, CampaignId, ChainId, CursorQuery, DateTime, PaginationQuery, UnixSecondsString } from './common.js';
import { Incentive } from './incentives.js';
import { Nullable, ref, StringEnum } from './typebox.js';

/**
 * The campaign list item and detail object, the public API's with the word `campaign` for `boost`
 * (docs/public-api.md), and the query of `GET /campaigns`.
 */

const NullableText = (description: string) => Type.Optional(Nullable(Type.String({ description })));

export const ActionStep = Type.Object(
  {
    chainId: ChainId,
    claimant: Type.Optional(ref(Address)),
    signature: Type.String({ description: 'Selector of the function or topic of the event the step watches' }),
    signatureName: Type.String({ examples: ['Transfer(address,address,uint256)'] }),
    signatureType: StringEnum(SIGNATURE_TYPES),
    actionType: Type.Integer({ minimum: 0 }),
    targetContract: ref(Address),
    parameters: Type.Object(
      {
        filterType: Type.Integer(),
        fieldType: Type.Integer(),
        fieldIndex: Type.Integer(),
        filterData: Type.String(),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'ActionStep',
    additionalProperties: false,
    description: 'An on-chain action that must be completed before the incentives can be claimed.',
  },
);

export const AllowList = Type.Object(
  {
    owner: Type.Unsafe<string>({ ...ref(Address), description: 'Can modify the allowed users' }),
    contractAddress: ref(Address),
    type: StringEnum(ALLOW_LIST_TYPES),
    addresses: Type.Optional(
      Nullable(Type.Array(ref(Address)), {
        description: 'The listed addresses of a SimpleAllowList or SimpleDenyList; null for the other types',
      }),
    ),
  },
  { $id: 'AllowList', additionalProperties: false, description: 'Who may claim.' },
);

/** Chain id -> block number, both as decimal strings. */
const BlockNumbersByChain = Type.Record(Type.String({ pattern: '^[0-9]+$' }), ref(BigIntString), {
  description: 'Block number of the creating transaction, by chain id',
  examples: [{ 8453: '22831554' }],
});

const presentationFields = {
  availableBudgetUsd: NullableText('Unclaimed budget of the priced token incentives, in USD with 2 decimals'),
  templateId: NullableText('System ID of the template the campaign was created from'),
  actionTemplateId: NullableText('System ID of the action template'),
  nftImageUri: NullableText('Image of the NFT the campaign is about'),
  nftName: NullableText('Name of the NFT the campaign is about'),
  campaignName: NullableText('Human readable name, typically the required action'),
  projectImageUri: NullableText('Image of the project behind the action'),
  tokenImageUri: NullableText('Image of the token the campaign pays'),
};

export const CampaignListItem = Type.Object(
  {
    id: ref(CampaignId),
    action: ref(Address),
    allowList: Nullable(ref(AllowList)),
    campaignIndex: Type.Unsafe<string>({ ...ref(BigIntString), description: 'Index of the campaign in its core contract' }),
    budget: Type.Unsafe<string>({ ...ref(Address), description: 'Backing budget contract' }),
    incentiveCount: Type.Unsafe<string>({ ...ref(BigIntString), description: 'Number of incentives attached' }),
    owner: ref(Address),
    validator: Type.Unsafe<string>({ ...ref(Address), description: 'Signs claim payloads' }),
    blockTimestamp: UnixSecondsString,
    txHash: Type.String({ description: 'Hash of the creating transaction' }),
    chainId: ChainId,
    actionSteps: Type.Optional(Nullable(Type.Array(ref(ActionStep)))),
    protocolFee: Type.Unsafe<string>({ ...ref(BigIntString), description: 'Fee collected on value distribution' }),
    maxParticipants: Type.Unsafe<string>({ ...ref(BigIntString), description: 'Maximum number of participants' }),
    incentives: Type.Array(ref(Incentive)),
    createdAtBlockTimestamp: Type.Unsafe<string>({ ...UnixSecondsString, description: 'Unix time of the creating block' }),
    createdAtChainBlockNumbers: Type.Optional(Nullable(BlockNumbersByChain)),
    isActive: Type.Optional(Type.Boolean({ description: 'Started, not ended, and budget left' })),
    usdSpend: Type.Optional(Type.Number({ description: 'USD value of every claim so far' })),
    tokenSpend: Type.Optional(Type.Number({ description: 'Tokens claimed so far, in whole tokens' })),
    ...presentationFields,
  },
  { $id: 'CampaignListItem', additionalProperties: false, description: 'A campaign as the list shows it.' },
);
export type CampaignListItem = Static<typeof CampaignListItem>;

export const CampaignList = Type.Object(
  {
    campaigns: Type.Array(ref(CampaignListItem)),
    totalCampaigns: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Number of campaigns matching the filters, on all pages: always with `page`, with `cursor` when `includeTotal=true`',
      }),
    ),
    nextCursor: Type.Optional(
      Nullable(Type.String(), {
        description: 'With `cursor` only: the cursor of the next page, null after the last. (A `page` answer gives it in its `Link` header.)',
      }),
    ),
  },
  { $id: 'CampaignList', additionalProperties: false },
);
export type CampaignList = Static<typeof CampaignList>;

export const ActionClaimant = Type.Object(
  {
    signature: Type.String(),
    signatureName: Type.String(),
    signatureType: StringEnum(SIGNATURE_TYPES),
    fieldIndex: Type.Integer({ minimum: 0 }),
    targetContractName: Nullable(Type.String({ description: 'Name of the target contract in the contract registry' })),
    targetContract: ref(Address),
    chainId: ChainId,
  },
  {
    $id: 'ActionClaimant',
    additionalProperties: false,
    description: 'How to read the claimant address from a qualifying transaction.',
  },
);

export const CampaignDetail = Type.Object(
  {
    id: ref(CampaignId),
    actionSteps: Type.Array(ref(ActionStep)),
    allowList: Type.Unsafe<Static<typeof AllowList>>({
      ...ref(AllowList),
      description: 'Always present; a campaign open to everyone reports OpenAllowList with the zero address',
    }),
    protocolFee: ref(BigIntString),
    maxParticipants: ref(BigIntString),
    incentives: Type.Array(ref(Incentive)),
    owner: ref(Address),
    isActive: Type.Boolean({ description: 'Whether the campaign can still be claimed' }),
    createdAt: DateTime,
    budget: ref(Address),
    actionClaimant: Type.Optional(ref(ActionClaimant)),
    createdAtBlockchainNumbers: Type.Optional(BlockNumbersByChain),
    ...presentationFields,
    nftMetadataId: NullableText('System ID of the NFT metadata'),
    startTime: Type.Optional(Nullable(DateTime)),
    endTime: Type.Optional(Nullable(DateTime)),
  },
  { $id: 'CampaignDetail', additionalProperties: false, description: 'A campaign with everything known about it.' },
);
export type CampaignDetail = Static<typeof CampaignDetail>;

export const TOKEN_FILTER_PATTERN = '^[0-9]{1,10}:0x[a-fA-F0-9]{40}(:collection)?$';
export const CAMPAIGN_SORTS = ['recently-deployed', 'active'] as const;

/**
 * The campaign filters of `GET /campaigns` (all combine with AND), shared with the trending route. List parameters
 * are comma-separated (split and trimmed by the server-wide query rules, at most 50 entries).
 */
export const CampaignFilterQuery = {
  budgetAccount: Type.Optional(
    Type.Array(ref(Address), { description: 'Budget accounts, comma-separated; any of them matches' }),
  ),
  owner: Type.Optional(ref(Address)),
  autocampaignId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      // A NUL byte cannot reach PostgreSQL text at all; no control character is part of an ID.
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      errorMessage: 'must be 1 to 100 characters without control characters',
      examples: ['ac-1'],
    }),
  ),
  chainId: Type.Optional({ ...ChainId, description: "The campaign's chain; required with targetContract" }),
  targetContract: Type.Optional(
    Type.Unsafe<string>({ ...ref(Address), description: 'Campaigns with an action step targeting this contract on chainId' }),
  ),
  tokens: Type.Optional(
    Type.Array(
      Type.String({
        pattern: TOKEN_FILTER_PATTERN,
        errorMessage: 'must be <chain_id>:<token_address> or <chain_id>:<token_address>:collection',
      }),
      {
        description:
          'Comma-separated. `<chain_id>:<address>` matches campaigns with an incentive paying that token; ' +
          '`<chain_id>:<address>:collection` matches campaigns whose action steps target that collection.',
        examples: [['8453:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913']],
      },
    ),
  ),
  distributionChannel: Type.Optional(
    Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9._-]+$',
        errorMessage: "must be a channel name: letters, digits, '.', '_' or '-'",
      }),
      { description: 'Distribution channels, comma-separated; any of them matches', examples: [['farcaster']] },
    ),
  ),
  tokenWhitelist: Type.Optional(
    Type.Boolean({ default: true, description: 'Hide campaigns paying a token that is not on the token whitelist' }),
  ),
};

export const CampaignListQuery = Type.Object(
  {
    ...PaginationQuery,
    ...CampaignFilterQuery,
    sortBy: Type.Optional(
      StringEnum(CAMPAIGN_SORTS, {
        default: 'recently-deployed',
        description: '`recently-deployed`: newest first; `active`: active campaigns first, then newest',
      }),
    ),
    actionTemplateOnly: Type.Optional(
      Type.Boolean({ description: 'true: only campaigns made from an action template; false: only custom ones', examples: [true] }),
    ),
    showActiveOnly: Type.Optional(Type.Boolean({ description: 'true: only active campaigns', examples: [true] })),
    cursor: CursorQuery(
      'Continues a walk from the page that gave it (`nextCursor`, or the `Link: <…>; rel="next"` header of any page): the ' +
        'campaigns after that page\'s last, in the same order; deep pages stay as fast as the first. The walk keeps the instant ' +
        'of its first page: which campaigns are active (the order of `sortBy=active`, `showActiveOnly`, each `isActive`) is ' +
        'judged at that instant on every page. Not with `page` above 1; keep the filters and `sortBy` as they were.',
    ),
    includeTotal: Type.Optional(
      Type.Boolean({ description: 'With `cursor`: also count the campaigns on all pages (`totalCampaigns`). A `page` always has the count.' }),
    ),
  },
  { additionalProperties: false, dependencies: { targetContract: ['chainId'] } },
);
export type CampaignListQuery = Static<typeof CampaignListQuery>;

export const CampaignParams = Type.Object({ id: ref(CampaignId) }, { additionalProperties: false });
export type CampaignParams = Static<typeof CampaignParams>;
