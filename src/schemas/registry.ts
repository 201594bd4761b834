import { type Static, Type } from '@sinclair/typebox';
import {
  ACTION_TEMPLATE_CATEGORIES,
  MEMBER_STATUSES,
  REGISTRY_TYPES,
  SIGNATURE_TYPES,
  TEMPLATE_DISTRIBUTION_CHANNELS,
  TEMPLATE_STATUSES,
} from '../db/schema.js';
import { Address, CampaignId, ChainId, ClaimIncentiveId, MAX_PAGE_SIZE, PaginationQuery, UnixSecondsString } from './common.js';
import { TemplateBuilderMetadata, TemplateCampaignConfig, TemplateNameConfig } from './template-config.js';
import { Nullable, ref, StringEnum } from './typebox.js';

/**
 * The registry operations of the public API (docs/public-api.md): known signatures, claimable signatures, the token blocklist, action
 * templates and budget accounts.
 */

// --- GET /known-signatures

export const KnownSignature = Type.Object(
  {
    id: Type.String({
      pattern: '^0x[0-9a-f]{64}$',
      description: 'Event topic, or function selector zero-padded on the left to 32 bytes',
      examples: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'],
    }),
    textSignature: Type.String({ examples: ['Transfer(address,address,uint256)'] }),
    abiItem: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'ABI fragment; absent when unknown' })),
    signatureType: StringEnum(SIGNATURE_TYPES),
  },
  { $id: 'KnownSignature', additionalProperties: false, description: 'An event or function signature the service can name.' },
);

export const KnownSignaturePage = Type.Object(
  {
    signatures: Type.Array(ref(KnownSignature)),
    count: Type.Integer({ minimum: 0, description: 'Known signatures on all pages, not only on this one' }),
  },
  { $id: 'KnownSignaturePage', additionalProperties: false },
);
export type KnownSignaturePage = Static<typeof KnownSignaturePage>;

export const KnownSignaturesQuery = Type.Object({ ...PaginationQuery }, { additionalProperties: false });

// --- GET /signatures/claimable/{address}

export const ClaimableSignature = Type.Object(
  {
    campaignId: ref(CampaignId),
    signature: Type.String({ description: 'A claim signature not yet used' }),
    claimant: ref(Address),
    incentiveId: ClaimIncentiveId,
    referrer: ref(Address),
  },
  { $id: 'ClaimableSignature', additionalProperties: false, description: 'An unused claim signature on an active campaign.' },
);
export const ClaimableSignatureList = Type.Array(ref(ClaimableSignature), { $id: 'ClaimableSignatureList', maxItems: 100 });
export type ClaimableSignatureList = Static<typeof ClaimableSignatureList>;

export const AddressParams = Type.Object({ address: ref(Address) }, { additionalProperties: false });

// --- GET /blocklist/{chainId}/{tokenAddress}

/** Path segments are strings: the chain id is checked as decimal digits here and against the range by the route. */
export const BlocklistParams = Type.Object(
  {
    chainId: Type.String({
      pattern: '^[0-9]{1,10}$',
      errorMessage: 'must be a chain id: decimal digits',
      description: 'EVM chain id',
      examples: ['8453'],
    }),
    tokenAddress: ref(Address),
  },
  { additionalProperties: false },
);
export const BlocklistStatus = Type.Object(
  { isBlocked: Type.Boolean({ description: 'The operator marked this token blocked on this chain' }) },
  { $id: 'BlocklistStatus', additionalProperties: false },
);

// --- GET /action-templates, /action-templates/{id}

export const ActionTemplateDetail = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Template UUID' }),
    actionType: Type.String({ examples: ['mint'] }),
    projectId: Type.Optional(Type.String({ description: "The project's slug", examples: ['zora'] })),
    description: Type.String(),
    title: Type.String(),
    campaignConfig: TemplateCampaignConfig,
    nameConfig: TemplateNameConfig,
    isActive: Type.Boolean(),
    urlTemplate: Nullable(Type.String()),
    allowlist: Type.Array(ref(Address), { description: 'Allowed users; empty: everyone' }),
    distributionChannel: Type.Array(StringEnum(TEMPLATE_DISTRIBUTION_CHANNELS)),
    verificationLevel: Nullable(Type.String()),
    builderMetadata: Nullable(TemplateBuilderMetadata),
    status: StringEnum(TEMPLATE_STATUSES),
    category: StringEnum(ACTION_TEMPLATE_CATEGORIES),
  },
  { $id: 'ActionTemplateDetail', additionalProperties: false, description: 'An action template with its configuration.' },
);

export const TemplateItem = Type.Object(
  {
    actionTemplate: ref(ActionTemplateDetail),
    project: Type.Object(
      {
        id: Type.String({ description: "The project's slug", examples: ['zora'] }),
        url: Type.String(),
        icon: Type.String(),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'TemplateItem', additionalProperties: false },
);
export type TemplateItem = Static<typeof TemplateItem>;
export const TemplateList = Type.Array(ref(TemplateItem), { $id: 'TemplateList' });
export type TemplateList = Static<typeof TemplateList>;

export const ActionTemplatesQuery = Type.Object(
  {
    address: Type.Optional(Type.Unsafe<string>({ ...ref(Address), description: "Only templates built from this budget account" })),
    onlyActive: Type.Optional(Type.Boolean({ default: true, description: 'Only templates usable now' })),
    status: Type.Optional(
      Type.Array(StringEnum(TEMPLATE_STATUSES, { errorMessage: `must be one of: ${TEMPLATE_STATUSES.join(', ')}` }), {
        description: 'Review states, comma-separated; any of them matches',
        examples: [['approved', 'pending']],
      }),
    ),
    page: PaginationQuery.page,
    pageSize: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_PAGE_SIZE,
        default: MAX_PAGE_SIZE,
        description: 'Templates per page (this service pages every list; the default shows the first 100)',
        examples: [MAX_PAGE_SIZE],
      }),
    ),
  },
  { additionalProperties: false },
);
export type ActionTemplatesQuery = Static<typeof ActionTemplatesQuery>;

export const TemplateParams = Type.Object(
  {
    id: Type.String({
      format: 'uuid',
      errorMessage: 'must be a UUID',
      description: 'Template UUID',
      examples: ['84395e66-abc2-4c9b-94aa-9796d8a0dad2'],
    }),
  },
  { additionalProperties: false },
);

// --- GET /budget-accounts, /budget-accounts/{id}

const Member = Type.Object(
  {
    memberAddress: ref(Address),
    roles: Type.Array(Type.Integer({ enum: [1, 2] }), { description: '1 = MANAGER, 2 = ADMIN' }),
    email: Type.Optional(Type.Null({ description: 'Never served: e-mail addresses are personal data (always null)' })),
    status: Type.Optional(StringEnum(MEMBER_STATUSES, { description: 'Invitation state; absent when unknown' })),
  },
  { additionalProperties: false },
);

const budgetAccountFields = {
  id: Type.String({ description: '`<chain_id>:<address>`', examples: ['8453:0xa904ef32d569e2ada8f4de6244bf68f36fa219f6'] }),
  identifier: Type.String({ description: 'The account address' }),
  registryType: StringEnum(REGISTRY_TYPES),
  baseImplementation: ref(Address),
  deployedInstance: ref(Address),
  txHash: Type.String(),
  blockTimestamp: UnixSecondsString,
  blockNumber: Type.String({ pattern: '^[0-9]+$', description: 'Block number, as a decimal string' }),
  chainId: ChainId,
  name: Type.Optional(Type.String({ description: 'Unique name (a UUID until renamed); absent when unknown' })),
  address: ref(Address),
  owner: ref(Address),
};
const budgetAccountTail = {
  hidden: Type.Boolean({ description: 'Left out of listings' }),
  label: Type.Optional(Nullable(Type.String())),
  members: Type.Array(Member),
  deprecated: Type.Boolean({ description: 'An old implementation' }),
};

export const BudgetAccount = Type.Object(
  {
    ...budgetAccountFields,
    ownerEmail: Type.Optional(Type.Null({ description: 'Never served: e-mail addresses are personal data (always null)' })),
    ...budgetAccountTail,
  },
  { $id: 'BudgetAccount', additionalProperties: false, description: 'A component of the budget registry, with its members.' },
);
export type BudgetAccount = Static<typeof BudgetAccount>;

export const BudgetAccountListItem = Type.Object(
  { ...budgetAccountFields, ...budgetAccountTail },
  { $id: 'BudgetAccountListItem', additionalProperties: false, description: 'A budget account as the list shows it.' },
);
export const BudgetAccountList = Type.Array(ref(BudgetAccountListItem), { $id: 'BudgetAccountList' });
export type BudgetAccountList = Static<typeof BudgetAccountList>;

export const BudgetAccountsQuery = Type.Object(
  {
    chainId: Type.Optional(ChainId),
    member: Type.Optional(Type.Unsafe<string>({ ...ref(Address), description: 'Accounts this address is a member of' })),
    owner: Type.Optional(Type.Unsafe<string>({ ...ref(Address), description: 'Accounts this address owns' })),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export type BudgetAccountsQuery = Static<typeof BudgetAccountsQuery>;

export const BudgetAccountParams = Type.Object(
  {
    id: Type.String({
      pattern: '^[0-9]{1,10}:0x[a-fA-F0-9]{40}$',
      errorMessage: 'must be <chain_id>:<address>',
      description: 'Budget account ID `<chain_id>:<address>`',
      examples: ['8453:0xa904ef32d569e2ada8f4de6244bf68f36fa219f6'],
    }),
  },
  { additionalProperties: false },
);
