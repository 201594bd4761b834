import { type Static, type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import {
  ACTION_TEMPLATE_CATEGORIES,
  ALLOW_LIST_TYPES,
  INCENTIVE_TYPES,
  MEMBER_ROLES,
  MEMBER_STATUSES,
  REGISTRY_TYPES,
  SIGNATURE_TYPES,
  TEMPLATE_DISTRIBUTION_CHANNELS,
  TEMPLATE_STATUSES,
} from '../db/schema.js';
import { TemplateBuilderMetadata, TemplateCampaignConfig, TemplateNameConfig } from '../schemas/template-config.js';
import { MAX_PRICE_JUMP, PRICE_PATTERN, PRICE_RULE } from './price-quote.js';

/**
 * The records of the write path (docs/writing-data.md): one TypeBox schema per kind, which is at once
 * the validation of an import line, the TypeScript type ingest/ and export work with, and
 * docs/import.schema.json. A record is the whole row: a field left out takes its default (null,
 * false, empty), it does not keep what is stored. Derived columns (claim totals, flags, documents,
 * public IDs, internal keys) are never part of a record.
 *
 * `errorMessage` is the wording of an error about that field (`claim.amount must be a decimal
 * integer string`); no regular expression reaches the operator.
 */

const text = (errorMessage = 'must be a string') => Type.String({ errorMessage });

export const Address = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  errorMessage: 'must be an address: 0x followed by 40 hexadecimal characters',
});
const Hash = Type.String({
  pattern: '^0x[0-9a-fA-F]{64}$',
  errorMessage: 'must be a transaction hash: 0x followed by 64 hexadecimal characters',
});
const Hex = Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', errorMessage: 'must be 0x followed by pairs of hexadecimal characters' });
/** uint256 on chain. */
const Uint256 = Type.String({ pattern: '^[0-9]{1,78}$', errorMessage: 'must be a decimal integer string (at most 78 digits)' });
const Decimal = (integerDigits: number, fractionDigits: number, signed = false) =>
  Type.String({
    pattern: `^${signed ? '-?' : ''}[0-9]{1,${integerDigits}}(\\.[0-9]{1,${fractionDigits}})?$`,
    errorMessage: `must be a decimal string with at most ${integerDigits} digits before the point and ${fractionDigits} after`,
  });
const Integer = (minimum: number, maximum: number) =>
  Type.Integer({ minimum, maximum, errorMessage: `must be an integer from ${minimum} to ${maximum}` });
const ChainId = Integer(0, 2_147_483_647);
const Uuid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  errorMessage: 'must be a UUID',
});
const DateTime = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,6})?Z$',
  errorMessage: 'must be an ISO 8601 UTC date-time such as 2026-01-31T12:00:00.000Z',
});
const Bool = Type.Boolean({ errorMessage: 'must be true or false' });
/** A list of addresses, each at most once (allow-list and access-list members). */
const AddressSet = Type.Array(Address, { uniqueItems: true, errorMessage: 'must be a list of distinct addresses' });
const oneOf = <const Values extends readonly string[]>(values: Values) =>
  Type.Unsafe<Values[number]>({ type: 'string', enum: [...values], errorMessage: `must be one of: ${values.join(', ')}` });
/** `<chain_id>:<core_address>:<identifier>`, the campaign's public ID: how claims and signatures name their campaign. */
export const CampaignRef = Type.String({
  pattern: '^[0-9]{1,10}:0x[0-9a-fA-F]{40}:[0-9]{1,78}$',
  errorMessage: 'must be a campaign ID <chain_id>:<campaign_core_address>:<identifier>',
});

/** The schema or JSON null; optional, so that null is also what leaving it out means. */
function orNull<T extends TSchema>(schema: T) {
  const type = (schema as { type?: string }).type;
  return Type.Optional(Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] }));
}

const record = <Kind extends string, Properties extends TProperties>(kind: Kind, properties: Properties, description: string) =>
  Type.Object(
    { kind: Type.Literal(kind), deleted: Type.Optional(Type.Literal(false, { errorMessage: 'must be false or absent' })), ...properties },
    { $id: `${kind}Record`, additionalProperties: false, description },
  );

/** What a delete names: the natural key alone. */
const deletion = <Kind extends string, Properties extends TProperties>(kind: Kind, key: Properties) =>
  Type.Object(
    { kind: Type.Literal(kind), deleted: Type.Literal(true), ...key },
    { $id: `${kind}Deletion`, additionalProperties: false, description: `Deletes the ${kind} with this natural key (no-op when absent).` },
  );

const tokenKey = { chainId: ChainId, address: Address };
export const TokenRecord = record(
  'token',
  {
    ...tokenKey,
    id: Uuid,
    name: text(),
    symbol: text(),
    decimals: Integer(0, 77),
    imageUri: text(),
    isWhitelisted: Type.Optional(Bool),
    isBlocked: Type.Optional(Bool),
    priceUsd: orNull(Decimal(20, 18)),
    marketCapUsd: orNull(Decimal(32, 6)),
    priceChange24hPct: orNull(Decimal(8, 4, true)),
    volume24hUsd: orNull(Decimal(32, 6)),
    holders: orNull(Integer(0, 2_147_483_647)),
  },
  'A token the service knows (metadata, whitelist, blocklist, price). Natural key: chainId, address. A blocked token cannot be whitelisted. ' +
    "Once the indexer has read the token's decimals from its contract, those stay and a record's decimals are ignored; " +
    'name, symbol, imageUri (empty: no image), whitelist and price are always the record\'s.',
);

const priceKey = { chainId: Integer(1, 2_147_483_647), address: Address, at: DateTime };
export const PriceRecord = record(
  'price',
  { ...priceKey, priceUsd: Type.String({ pattern: PRICE_PATTERN, errorMessage: PRICE_RULE }) },
  "A token's USD price at a time, in the price history as the price job stores a source's quote (source import): the claims from `at` " +
    'to two hours after it that wait for a price are valued with it, and so is a claim written later at those times; a claim already valued keeps its value. ' +
    'Natural key: chainId, address, at. The token need not be known (0x0000000000000000000000000000000000000000 is the chain\'s native token, which prices ETH values). ' +
    `Refused when more than ${MAX_PRICE_JUMP}x away from the token's nearest known price within a day. The token's current price stays what its token record or a price source set.`,
);

const projectKey = { id: Uuid };
export const ProjectRecord = record(
  'project',
  { ...projectKey, name: text(), imageUri: text(), url: text(), verificationLevel: text() },
  'A project behind action templates. Natural key: id.',
);

const actionTemplateKey = { id: Uuid };
export const ActionTemplateRecord = record(
  'actionTemplate',
  {
    ...actionTemplateKey,
    projectId: Uuid,
    actionType: text(),
    description: text(),
    category: oneOf(ACTION_TEMPLATE_CATEGORIES),
    title: text(),
    campaignConfig: TemplateCampaignConfig,
    nameConfig: TemplateNameConfig,
    isActive: Type.Optional(Bool),
    urlTemplate: orNull(text()),
    allowlist: Type.Optional(AddressSet),
    distributionChannels: Type.Optional(
      Type.Array(oneOf(TEMPLATE_DISTRIBUTION_CHANNELS), { uniqueItems: true, errorMessage: 'must be a list of distinct channels' }),
    ),
    verificationLevel: orNull(text()),
    builderMetadata: orNull(TemplateBuilderMetadata),
    status: Type.Optional(oneOf(TEMPLATE_STATUSES)),
  },
  'An action template with its campaign configuration (GET /action-templates shows it as given). Natural key: id; projectId names a project record. isActive defaults to true, status to approved.',
);

const contractKey = { chainId: ChainId, address: Address };
export const ContractRecord = record('contract', { ...contractKey, name: text() }, 'A named contract. Natural key: chainId, address.');

const userKey = { address: Address };
export const UserRecord = record(
  'user',
  { ...userKey, id: Type.Optional(Uuid), score: Type.Optional(Integer(-2_147_483_648, 2_147_483_647)) },
  'A user. Natural key: address. id is set when the user is first written (random when left out) and never changes.',
);

const accessListKey = { id: Uuid };
export const AccessListRecord = record(
  'accessList',
  {
    ...accessListKey,
    owner: Address,
    name: text(),
    icon: text(),
    createdAt: DateTime,
    members: Type.Optional(AddressSet),
  },
  'An access list with its members. Natural key: id; owner names a user record by address.',
);

const allowListKey = { chainId: ChainId, contractAddress: Address };
export const AllowListRecord = record(
  'allowList',
  {
    ...allowListKey,
    owner: Address,
    type: oneOf(ALLOW_LIST_TYPES),
    accessListId: orNull(Uuid),
    addresses: Type.Optional(AddressSet),
  },
  'An allow list with its addresses. Natural key: chainId, contractAddress. An OffchainAccessList names its accessListId.',
);

const knownSignatureKey = {
  id: Type.String({
    pattern: '^0x[0-9a-fA-F]{64}$',
    errorMessage: 'must be 0x followed by 64 hexadecimal characters (a topic, or a selector zero-padded on the left)',
  }),
};
export const KnownSignatureRecord = record(
  'knownSignature',
  {
    ...knownSignatureKey,
    textSignature: text(),
    abiItem: orNull(Type.Object({}, { additionalProperties: true, errorMessage: 'must be an object' })),
    signatureType: oneOf(SIGNATURE_TYPES),
  },
  'An event or function signature the service can name (GET /known-signatures). Natural key: id.',
);

const budgetAccountKey = { chainId: ChainId, address: Address };
const BudgetMember = Type.Object(
  {
    address: Address,
    roles: Type.Array(Type.Integer({ enum: [...MEMBER_ROLES], errorMessage: 'must be 1 (MANAGER) or 2 (ADMIN)' }), {
      uniqueItems: true,
      errorMessage: 'must be a list of distinct roles',
    }),
    email: orNull(text()),
    status: Type.Optional(
      Type.Unsafe<(typeof MEMBER_STATUSES)[number] | null>({
        type: ['string', 'null'],
        enum: [...MEMBER_STATUSES, null],
        errorMessage: `must be one of: ${MEMBER_STATUSES.join(', ')}, or null`,
      }),
    ),
  },
  { additionalProperties: false, errorMessage: 'must be a member object' },
);
export const BudgetAccountRecord = record(
  'budgetAccount',
  {
    ...budgetAccountKey,
    registryType: oneOf(REGISTRY_TYPES),
    baseImplementation: Address,
    deployedInstance: Address,
    txHash: Hash,
    blockTimestamp: Integer(0, Number.MAX_SAFE_INTEGER),
    blockNumber: Integer(0, Number.MAX_SAFE_INTEGER),
    name: orNull(text()),
    owner: Address,
    ownerEmail: orNull(text()),
    hidden: Type.Optional(Bool),
    label: orNull(text()),
    deprecated: Type.Optional(Bool),
    members: Type.Optional(Type.Array(BudgetMember)),
  },
  'A component of the budget registry with its members. Natural key: chainId, address. E-mail addresses are stored, never served by the API.',
);

/** Only the fields the database reads; the variant's other fields are stored and shown as given. */
const IncentiveParams = Type.Object(
  {
    asset: Type.Optional(Address),
    /** A pegged variant's peg: the token its reward is named in. */
    peg: Type.Optional(Address),
    reward: Type.Optional(Uint256),
    limit: Type.Optional(Uint256),
    totalBudget: Type.Optional(Uint256),
  },
  { additionalProperties: true, errorMessage: 'must be an object of the variant fields' },
);

const Incentive = Type.Object(
  {
    type: oneOf(INCENTIVE_TYPES),
    params: IncentiveParams,
    /** Written by the indexer: what the incentive holds on chain; when present, remainingBalance is this. */
    balance: Type.Optional(Uint256),
  },
  { additionalProperties: false, errorMessage: 'must be an object with type and params' },
);

const ActionStep = Type.Object(
  {
    chainId: ChainId,
    targetContract: Address,
    claimant: orNull(Address),
    signature: text(),
    signatureName: text(),
    signatureType: oneOf(SIGNATURE_TYPES),
    actionType: Integer(-2_147_483_648, 2_147_483_647),
    parameters: Type.Object(
      { filterType: Type.Number(), fieldType: Type.Number(), fieldIndex: Type.Number(), filterData: Type.String() },
      { additionalProperties: false, errorMessage: 'must have filterType, fieldType, fieldIndex (numbers) and filterData (string)' },
    ),
  },
  { additionalProperties: false },
);

const ActionClaimant = Type.Object(
  {
    signature: text(),
    signatureName: text(),
    signatureType: oneOf(SIGNATURE_TYPES),
    fieldIndex: Type.Integer({ errorMessage: 'must be an integer' }),
    targetContract: Address,
    chainId: ChainId,
  },
  { additionalProperties: false },
);

const campaignKey = { chainId: ChainId, coreAddress: Address, identifier: Uint256 };
export const CampaignRecord = record(
  'campaign',
  {
    ...campaignKey,
    campaignIndex: Uint256,
    owner: Address,
    creator: Address,
    budget: Address,
    validator: Address,
    action: Address,
    protocolFee: Uint256,
    maxParticipants: Uint256,
    blockTimestamp: Integer(0, Number.MAX_SAFE_INTEGER),
    blockNumber: Integer(0, Number.MAX_SAFE_INTEGER),
    txHash: Hash,
    startTime: orNull(DateTime),
    endTime: orNull(DateTime),
    distributionChannels: Type.Optional(Type.Array(text(), { errorMessage: 'must be a list of strings' })),
    autocampaignId: orNull(text()),
    templateId: orNull(text()),
    actionTemplateId: orNull(Uuid),
    allowList: orNull(Type.Object({ chainId: ChainId, contractAddress: Address }, { additionalProperties: false })),
    campaignName: orNull(text()),
    nftImageUri: orNull(text()),
    nftName: orNull(text()),
    nftMetadataId: orNull(text()),
    projectImageUri: orNull(text()),
    tokenImageUri: orNull(text()),
    actionTokenAddress: orNull(Address),
    actionClaimant: orNull(ActionClaimant),
    incentives: Type.Array(Incentive, { maxItems: 32_767, errorMessage: 'must be a list of incentives' }),
    steps: Type.Optional(Type.Array(ActionStep, { maxItems: 32_767, errorMessage: 'must be a list of action steps' })),
  },
  'A campaign with its incentives (in position order) and action steps. Natural key: chainId, coreAddress, identifier. ' +
    'Claim totals, flags and documents are derived. Rewriting a campaign keeps the claims of the incentive positions it still has.',
);

const claimSignatureKey = { campaign: CampaignRef, signature: Hex };
export const ClaimSignatureRecord = record(
  'claimSignature',
  { ...claimSignatureKey, claimant: Address, incentiveId: Integer(0, 32_767), referrer: Address, used: Type.Optional(Bool) },
  "A validator's claim signature for a claimant, for the incentive BoostCore knows by `incentiveId` (its position among the boost's " +
    'incentives on chain, which is its position in the campaign unless the boost has incentives of types the service does not list). ' +
    'Natural key: campaign, signature.',
);

const claimKey = { chainId: ChainId, txHash: Hash, logIndex: Integer(0, 2_147_483_647) };
export const ClaimRecord = record(
  'claim',
  {
    ...claimKey,
    campaign: CampaignRef,
    incentivePosition: Integer(0, 32_767),
    claimant: Address,
    amount: Uint256,
    usdValue: Type.Optional(Decimal(32, 6)),
    ethValueWei: Type.Optional(Uint256),
    claimedAt: DateTime,
    blockNumber: Type.Optional(Integer(0, Number.MAX_SAFE_INTEGER)),
  },
  "A claim: one event log. Natural key: chainId, txHash, logIndex; chainId is the campaign's chain. Without usdValue or ethValueWei, the value left out comes from the token prices at claimedAt (the price history), and waits for them when they are not known yet.",
);

/**
 * Every kind, in the order that satisfies references: a record may name records of the kinds
 * before it. Writes go in this order, deletions in the reverse one, and export writes it.
 */
export const RECORD_KINDS = [
  { kind: 'token', upsert: TokenRecord, deletion: deletion('token', tokenKey) },
  { kind: 'price', upsert: PriceRecord, deletion: deletion('price', priceKey) },
  { kind: 'project', upsert: ProjectRecord, deletion: deletion('project', projectKey) },
  { kind: 'actionTemplate', upsert: ActionTemplateRecord, deletion: deletion('actionTemplate', actionTemplateKey) },
  { kind: 'contract', upsert: ContractRecord, deletion: deletion('contract', contractKey) },
  { kind: 'user', upsert: UserRecord, deletion: deletion('user', userKey) },
  { kind: 'accessList', upsert: AccessListRecord, deletion: deletion('accessList', accessListKey) },
  { kind: 'knownSignature', upsert: KnownSignatureRecord, deletion: deletion('knownSignature', knownSignatureKey) },
  { kind: 'budgetAccount', upsert: BudgetAccountRecord, deletion: deletion('budgetAccount', budgetAccountKey) },
  { kind: 'allowList', upsert: AllowListRecord, deletion: deletion('allowList', allowListKey) },
  { kind: 'campaign', upsert: CampaignRecord, deletion: deletion('campaign', campaignKey) },
  { kind: 'claimSignature', upsert: ClaimSignatureRecord, deletion: deletion('claimSignature', claimSignatureKey) },
  { kind: 'claim', upsert: ClaimRecord, deletion: deletion('claim', claimKey) },
] as const satisfies readonly { kind: string; upsert: TObject; deletion: TObject }[];

export type RecordKind = (typeof RECORD_KINDS)[number]['kind'];

export type TokenRecord = Static<typeof TokenRecord>;
export type PriceRecord = Static<typeof PriceRecord>;
export type ProjectRecord = Static<typeof ProjectRecord>;
export type ActionTemplateRecord = Static<typeof ActionTemplateRecord>;
export type ContractRecord = Static<typeof ContractRecord>;
export type UserRecord = Static<typeof UserRecord>;
export type AccessListRecord = Static<typeof AccessListRecord>;
export type AllowListRecord = Static<typeof AllowListRecord>;
export type KnownSignatureRecord = Static<typeof KnownSignatureRecord>;
export type BudgetAccountRecord = Static<typeof BudgetAccountRecord>;
export type CampaignRecord = Static<typeof CampaignRecord>;
export type ClaimSignatureRecord = Static<typeof ClaimSignatureRecord>;
export type ClaimRecord = Static<typeof ClaimRecord>;

export type UpsertRecord = Static<(typeof RECORD_KINDS)[number]['upsert']>;
export type DeletionRecord = Static<(typeof RECORD_KINDS)[number]['deletion']>;
export type IngestRecord = UpsertRecord | DeletionRecord;

/** docs/import.schema.json: any one line of an import file. */
export function importJsonSchema(): Record<string, unknown> {
  const definitions: Record<string, TSchema> = Object.fromEntries(
    RECORD_KINDS.flatMap(({ upsert, deletion: remove }): [string, TSchema][] => [
      [upsert.$id!, upsert],
      [remove.$id!, remove],
    ]),
  );
  return JSON.parse(
    JSON.stringify({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'https://campaign-service.example/import.schema.json',
      title: 'One line of an import file (NDJSON)',
      description:
        'Each line is one JSON object, a record of one kind, or a deletion ("deleted": true) naming its natural key. See docs/writing-data.md.',
      oneOf: Object.keys(definitions).map((id) => ({ $ref: `#/$defs/${id}` })),
      $defs: Object.fromEntries(
        Object.entries(definitions).map(([id, schema]) => {
          const { $id: _id, ...rest } = schema as { $id?: string };
          return [id, rest];
        }),
      ),
    }),
  ) as Record<string, unknown>;
}
