import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import { Address, BigIntString, ChainId } from './common.js';
import { Nullable, ref } from './typebox.js';

/**
 * The ten incentive variants, discriminated by `type`. Property order is the order of the public
 * API's document, and the order fields appear in responses.
 *
 * Storage keeps a variant's own fields in one JSONB column (`incentives.params`); the live fields
 * (claim totals, remaining balance) come from the claims, and `metadata` from the token table.
 */

export const TokenMetadata = Type.Object(
  {
    id: Type.String({ description: 'System ID of the token' }),
    chainId: ChainId,
    address: ref(Address),
    decimals: Type.Integer({ minimum: 0, maximum: 77, examples: [18] }),
    name: Type.String(),
    symbol: Type.String(),
    imageUri: Type.Union([Type.String({ format: 'uri' }), Type.Literal('')], {
      description: "The token's image; an empty string when the service has none (a token known only from its contract)",
    }),
  },
  { $id: 'TokenMetadata', additionalProperties: false, description: 'Metadata of the token an incentive pays.' },
);

const CRITERIA_DESCRIPTION =
  'How the claimable amount is read from the qualifying transaction. criteriaType as stored on chain: the SDK writes 0 for event data and 1 for function arguments (its SignatureType), the reverse of the names of the contract\'s own enum, which the contract never reads; GET /signatures reads it as the SDK does.';

const criteriaFields = {
  criteriaType: Type.Integer({ enum: [0, 1], description: 'As the SDK writes it: 0 = event data, 1 = function arguments' }),
  signature: Type.String({
    pattern: '^0x([a-fA-F0-9]{8}|[a-fA-F0-9]{64})$',
    description: '4-byte function selector or 32-byte event topic',
  }),
  fieldIndex: Type.Integer({ minimum: 0, description: 'Index of the argument or log field holding the amount' }),
  targetContract: ref(Address),
};

export const Criteria = Type.Object(criteriaFields, {
  $id: 'Criteria',
  additionalProperties: false,
  description: CRITERIA_DESCRIPTION,
});

export const CriteriaV2 = Type.Object(
  { ...criteriaFields, valueType: Type.Integer({ enum: [0, 1], description: '0 = RAW, 1 = WAD' }) },
  { $id: 'CriteriaV2', additionalProperties: false, description: `${CRITERIA_DESCRIPTION} valueType 0 = RAW, 1 = WAD.` },
);

const amount = (description: string) => Type.Unsafe<string>({ ...ref(BigIntString), description });
const claimTotals = {
  claimedAmount: Type.Optional(amount('Amount claimed so far, in base units of the asset')),
  totalClaims: Type.Optional(amount("Number of claims so far (a RAFFLE's entries: its draw is no claim, though totalAmountClaimed includes it)")),
  totalAmountClaimed: Type.Optional(amount('Amount claimed so far, in base units of the asset')),
};
const metadata = Type.Optional(Nullable(ref(TokenMetadata)));
const remainingBalance = Type.Optional(
  amount(
    'What the incentive still holds, in base units of the asset: its balance on chain as last indexed (after claims, clawbacks, ' +
      'top-ups and raffle draws); for imported data, the budget not yet claimed (a RAFFLE is funded with one prize, `reward`)',
  ),
);
const rebatePercentage = Type.Optional(Type.Number({ minimum: 0, maximum: 100 }));

const variant = <Name extends string, Properties extends TProperties>(
  name: Name,
  description: string,
  properties: Properties,
) =>
  Type.Object(
    { type: Type.Literal(name), ...properties },
    { $id: name, additionalProperties: false, description },
  );

export const AllowListIncentive = variant('AllowListIncentive', 'Membership of an allow list.', {
  allowListAddress: ref(Address),
  limit: amount('Maximum number of users that can claim'),
});

export const CGDAIncentive = variant('CGDAIncentive', 'Continuous gradual Dutch auction of an ERC-20 reward.', {
  asset: ref(Address),
  initialReward: ref(BigIntString),
  rewardDecay: amount('Subtracted from the reward after each claim'),
  rewardBoost: amount('Added to the reward per hour without a claim'),
  totalBudget: ref(BigIntString),
});

export const ERC20Incentive = variant('ERC20Incentive', 'A fixed ERC-20 reward per claim.', {
  asset: ref(Address),
  strategy: Type.Integer({ enum: [0, 1], description: 'POOL = 0, RAFFLE = 1' }),
  reward: amount('Fixed reward per claim'),
  limit: amount("Maximum number of claims remaining: the contract's limit() less the claims so far"),
  claimedAmount: claimTotals.claimedAmount,
  totalClaims: claimTotals.totalClaims,
  totalAmountClaimed: claimTotals.totalAmountClaimed,
  metadata,
  remainingBalance,
});

export const PointsIncentive = variant('PointsIncentive', 'Points issued by a points contract.', {
  venue: ref(Address),
  selector: Type.String({ pattern: '^0x[a-fA-F0-9]{8}$', description: 'Function selector that issues the points' }),
  reward: amount('Points per claim'),
  limit: amount('Maximum number of claims'),
});

export const ERC20VariableIncentive = variant(
  'ERC20VariableIncentive',
  'An ERC-20 reward scaled by the amount in the claim.',
  {
    asset: ref(Address),
    reward: amount('Scalar applied to the claim amount'),
    limit: amount('Total claimable tokens'),
    claimedAmount: claimTotals.claimedAmount,
    totalAmountClaimed: claimTotals.totalAmountClaimed,
    totalClaims: claimTotals.totalClaims,
    metadata,
    remainingBalance,
  },
);

const variableCriteriaFields = <C extends TObject>(criteria: C) => ({
  asset: ref(Address),
  reward: amount('Scalar multiplying the claim amount'),
  limit: amount('Total token budget'),
  maxReward: amount('Maximum reward per claim transaction'),
  criteria: ref(criteria),
  claimedAmount: claimTotals.claimedAmount,
  totalAmountClaimed: claimTotals.totalAmountClaimed,
  totalClaims: claimTotals.totalClaims,
  remainingBalance,
  metadata,
  rebatePercentage,
});

export const ERC20VariableCriteriaIncentive = variant(
  'ERC20VariableCriteriaIncentive',
  'An ERC-20 reward whose amount is read from the qualifying transaction.',
  variableCriteriaFields(Criteria),
);

export const ERC20VariableCriteriaIncentiveV2 = variant(
  'ERC20VariableCriteriaIncentiveV2',
  'As ERC20VariableCriteriaIncentive, with the value type (RAW or WAD) in the criteria.',
  variableCriteriaFields(CriteriaV2),
);

export const ERC20PeggedIncentive = variant(
  'ERC20PeggedIncentive',
  'An ERC-20 reward whose value is pegged to another asset.',
  {
    asset: ref(Address),
    peg: Type.Unsafe<string>({ ...ref(Address), description: 'Peg asset; the zero address means the native token' }),
    reward: ref(BigIntString),
    limit: amount('Total budget of the reward asset'),
    claimedAmount: claimTotals.claimedAmount,
    totalClaims: claimTotals.totalClaims,
    totalAmountClaimed: claimTotals.totalAmountClaimed,
    remainingBalance,
    metadata,
  },
);

const peggedVariableCriteriaFields = <C extends TObject>(criteria: C) => ({
  asset: ref(Address),
  peg: Type.Unsafe<string>({ ...ref(Address), description: 'Peg asset; the zero address means the native token' }),
  reward: ref(BigIntString),
  limit: amount('Total budget of the reward asset'),
  maxReward: amount('Maximum reward per claim transaction'),
  criteria: ref(criteria),
  claimedAmount: claimTotals.claimedAmount,
  totalAmountClaimed: claimTotals.totalAmountClaimed,
  totalClaims: claimTotals.totalClaims,
  metadata,
  remainingBalance,
  rebatePercentage,
});

export const ERC20PeggedVariableCriteriaIncentive = variant(
  'ERC20PeggedVariableCriteriaIncentive',
  'A pegged ERC-20 reward whose amount is read from the qualifying transaction.',
  peggedVariableCriteriaFields(Criteria),
);

export const ERC20PeggedVariableCriteriaIncentiveV2 = variant(
  'ERC20PeggedVariableCriteriaIncentiveV2',
  'As ERC20PeggedVariableCriteriaIncentive, with the value type (RAW or WAD) in the criteria.',
  peggedVariableCriteriaFields(CriteriaV2),
);

/** Every variant, in the order the public API's document lists them. */
export const INCENTIVE_VARIANTS = [
  AllowListIncentive,
  CGDAIncentive,
  ERC20Incentive,
  PointsIncentive,
  ERC20VariableIncentive,
  ERC20VariableCriteriaIncentive,
  ERC20VariableCriteriaIncentiveV2,
  ERC20PeggedIncentive,
  ERC20PeggedVariableCriteriaIncentive,
  ERC20PeggedVariableCriteriaIncentiveV2,
] as const;

export type IncentiveVariant = (typeof INCENTIVE_VARIANTS)[number];
export type Incentive = Static<IncentiveVariant>;
export type IncentiveType = Incentive['type'];

/** The fields that are not stored in `params`: derived from claims and from the token table. */
export const LIVE_INCENTIVE_FIELDS = [
  'claimedAmount',
  'totalClaims',
  'totalAmountClaimed',
  'remainingBalance',
  'metadata',
] as const;

/**
 * The union as `oneOf` with an OpenAPI discriminator. Each variant's component name equals its
 * `type` value, so the discriminator needs no mapping.
 */
export const Incentive = Type.Unsafe<Incentive>({
  $id: 'Incentive',
  description: 'One incentive; `type` selects the variant.',
  oneOf: INCENTIVE_VARIANTS.map((schema) => ref(schema)),
  discriminator: { propertyName: 'type' },
});
