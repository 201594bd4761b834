import { type Static, Type } from '@sinclair/typebox';
import { Address, CampaignId, ClaimIncentiveId, ErrorResponse } from './common.js';
import { ref, StringEnum } from './typebox.js';

/** `GET /signatures`: claim signatures for a transaction that did a campaign's action. */

/** Why a transaction earns no signature: stable codes a client acts on (docs/public-api.md lists each). */
export const REFUSAL_CODES = {
  tx_not_found: "The campaign's chain has no transaction with this hash (not sent, or dropped)",
  wrong_chain: "The transaction is on another chain than the campaign's",
  not_final: 'The transaction is pending, or not yet as many blocks deep as the operator requires; ask again later (Retry-After)',
  tx_failed: 'The transaction reverted',
  before_campaign: 'The transaction was mined in or before the block that created the campaign',
  action_not_done: "No log or call of the transaction matches one of the action's steps",
  criteria_not_met: "A step's log or call is there, but its field fails the step's filter; or a variable-criteria incentive finds no amount in the transaction",
  claimant_not_found: "The action's claimant field could not be read from the transaction",
  not_allowed: "The claimant may not claim under the campaign's allow list",
  already_claimed: 'The claimant has claimed the incentive',
  limit_reached: 'The incentive has paid as many claims as it may, or has less left than it would pay (what it holds, once the indexer read it)',
  caller_amount_not_allowed: 'An ERC20VariableIncentive pays an amount the caller chooses, and the operator does not allow that',
  price_unknown:
    "A pegged incentive pays its peg's worth in its asset, and the service has no price of the peg or the asset from the two hours before the transaction's block time; ask again later (Retry-After)",
  validator_does_not_trust_this_signer: "None of the service's keys is a signer of the campaign's validator",
} as const;
export type RefusalCode = keyof typeof REFUSAL_CODES;

const HASH = '^0x[a-fA-F0-9]{64}$';

export const SignaturesQuery = Type.Object(
  {
    campaignId: ref(CampaignId),
    txHash: Type.String({
      pattern: HASH,
      errorMessage: 'must be a transaction hash: 0x followed by 64 hexadecimal characters',
      description: 'The transaction that did the action, on the campaign\'s chain',
      examples: [`0x${'3f'.repeat(32)}`],
    }),
    claimData: Type.Optional(
      Type.String({
        pattern: '^0x([a-fA-F0-9]{2}){0,64}$',
        errorMessage: 'must be 0x-prefixed hex of at most 64 bytes',
        description:
          'For an ERC20VariableIncentive, the amount to sign for as an ABI-encoded uint256, where the operator allows amounts chosen by the caller; ignored by every other variant',
        examples: [`0x${'0'.repeat(48)}0de0b6b3a7640000`],
      }),
    ),
  },
  { additionalProperties: false },
);
export type SignaturesQuery = Static<typeof SignaturesQuery>;

export const IssuedSignature = Type.Object(
  {
    signature: Type.String({
      description:
        "What BoostCore.claimIncentive(boostId, incentiveId, referrer, data) takes as `data`: the validator's EIP-712 signature with its signer and the incentive data, ABI-encoded as the SDK's prepareSignerValidatorClaimDataPayload does",
    }),
    claimant: ref(Address),
    referrer: Type.Unsafe<string>({ ...ref(Address), description: 'The zero address: a signature does not bind a referrer; the claim names its own' }),
    incentiveId: ClaimIncentiveId,
  },
  { $id: 'IssuedSignature', additionalProperties: false, description: 'A signature that claims one incentive of a campaign.' },
);
export const IssuedSignatureList = Type.Array(ref(IssuedSignature), { $id: 'IssuedSignatureList', maxItems: 255 });
export type IssuedSignatureList = Static<typeof IssuedSignatureList>;

/** One example refusal per code, as the operation answers it. */
export const REFUSAL_EXAMPLES: { error: { message: string; code: RefusalCode } }[] = (
  [
    ['tx_not_found', `chain 8453 has no transaction 0x${'3f'.repeat(32)}`],
    ['wrong_chain', 'the transaction is on chain 10; the campaign is on chain 8453'],
    ['not_final', 'the transaction is 2 blocks deep; it is signed for once it is 5 deep'],
    ['tx_failed', 'the transaction reverted (block 23145678)'],
    ['before_campaign', 'the transaction is in block 23100000; the campaign was created in block 23145000'],
    ['action_not_done', 'the transaction has no Transfer event from 0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'],
    ['criteria_not_met', 'no Transfer event in the transaction has field 2 at least 1000000'],
    ['claimant_not_found', "the action's claimant field could not be read from the transaction"],
    ['not_allowed', "0x378632819f39c74c4f56b1429e760739c5fb51b7 may not claim under the campaign's allow list"],
    ['already_claimed', 'incentive 0: the claimant has claimed it'],
    ['limit_reached', 'incentive 0: it has paid its 100 claims'],
    ['caller_amount_not_allowed', 'incentive 0: it pays an amount the caller chooses, which this service does not sign for'],
    ['price_unknown', "incentive 0: its peg 0x4200000000000000000000000000000000000006 has no price from the two hours before the transaction's time (2026-11-28T09:14:07.000Z)"],
    ['validator_does_not_trust_this_signer', "the campaign's validator 0x9bd6a2b2b8a1e3b0e0d9f7f1f1f0a8f6e6d2c1b0 trusts none of this service's keys (0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A)"],
  ] as const
).map(([code, message]) => ({ error: { message, code } }));

export const SignatureRefusal = Type.Object(
  {
    error: Type.Object(
      {
        message: Type.String({ description: 'What the transaction lacks, in words' }),
        code: StringEnum(Object.keys(REFUSAL_CODES) as RefusalCode[], { description: 'The reason, stable across versions' }),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'SignatureRefusal',
    additionalProperties: false,
    description: 'A transaction that earns no signature, and why: one example per code.',
    examples: REFUSAL_EXAMPLES,
  },
);

/** GET /signatures' 400: a malformed query in the usual envelope, or a refusal with its code. */
export const SignatureError = Type.Union([ref(ErrorResponse), ref(SignatureRefusal)], {
  $id: 'SignatureError',
  description: 'A malformed query (`{ "error": "..." }`), or a transaction that earns no signature (`{ "error": { "message", "code" } }`).',
});

export const SIGNATURES_EXAMPLE: IssuedSignatureList = [
  {
    // Campaign 8453:…:1247, validator 0x9bd6…c1b0, signed by 0x19e7…ff2a for an ERC20Incentive (zero incentive data).
    signature:
      '0x0000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000000000000000001600000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000002000000000000000000000000019e7e376e7c213b7e7e7e46cc70a5dd086daff2a0000000000000000000000000000000000000000000000000000000000000060000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000410c73d763783b518e62f97162ca6fa896ed1c10f70b5d99dbfcbd302ee44892e159ac25d8140f218d9a1ee02b73ab2602c08eaaaef4041e21b487c04ac078dcef1c0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000000000',
    claimant: '0x378632819f39c74c4f56b1429e760739c5fb51b7',
    referrer: '0x0000000000000000000000000000000000000000',
    incentiveId: 0,
  },
];
