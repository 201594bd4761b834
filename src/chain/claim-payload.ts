import { type Address, encodeAbiParameters, type Hex, hashTypedData, type LocalAccount, parseAbi } from 'viem';

/**
 * What the protocol's `SignerValidator` (legacy generation, as @boostxyz/sdk 5.5.0 ships it) accepts
 * as proof that a claimant earned a campaign's incentives: an EIP-712 signature, by one of the
 * validator's signers, over (boostId, incentiveQuantity, claimant, incentiveData), wrapped as the
 * `data` that `BoostCore.claimIncentive(boostId, incentiveId, referrer, data)` takes.
 */

/**
 * Whatever signs: a local key (viem's `privateKeyToAccount`) or any account with the same
 * `signTypedData`, such as viem's `toAccount` around a remote signer or a KMS.
 */
export type ClaimSigner = Pick<LocalAccount, 'address' | 'signTypedData'>;

export interface ClaimPayloadInput {
  chainId: number;
  validator: Address;
  boostId: bigint;
  /** How many of the campaign's incentives the signature may claim: the validator refuses an incentiveId at or above it. */
  incentiveQuantity: number;
  claimant: Address;
  incentiveData: Hex;
}

const SIGNER_VALIDATOR_TYPES = {
  SignerValidatorData: [
    { name: 'boostId', type: 'uint256' },
    { name: 'incentiveQuantity', type: 'uint8' },
    { name: 'claimant', type: 'address' },
    { name: 'incentiveData', type: 'bytes' },
  ],
} as const;

function typedData(input: ClaimPayloadInput) {
  return {
    domain: { name: 'SignerValidator', version: '1', chainId: input.chainId, verifyingContract: input.validator },
    types: SIGNER_VALIDATOR_TYPES,
    primaryType: 'SignerValidatorData' as const,
    message: { boostId: input.boostId, incentiveQuantity: input.incentiveQuantity, claimant: input.claimant, incentiveData: input.incentiveData },
  };
}

/** The digest the signer signs: what the validator's `hashSignerData` returns for the same inputs. */
export function claimDigest(input: ClaimPayloadInput): Hex {
  return hashTypedData(typedData(input));
}

const VALIDATOR_INPUT = [
  {
    type: 'tuple',
    name: 'SignerValidatorInputParams',
    components: [
      { type: 'address', name: 'signer' },
      { type: 'bytes', name: 'signature' },
      { type: 'uint8', name: 'incentiveQuantity' },
    ],
  },
] as const;

const BOOST_CLAIM_DATA = [
  {
    type: 'tuple',
    name: 'BoostClaimData',
    components: [
      { type: 'bytes', name: 'validatorData' },
      { type: 'bytes', name: 'incentiveData' },
    ],
  },
] as const;

/** Signs the claim and encodes it as `claimIncentive`'s `data`, byte for byte as the SDK's `prepareSignerValidatorClaimDataPayload`. */
export async function signClaimPayload(signer: ClaimSigner, input: ClaimPayloadInput): Promise<Hex> {
  const signature = await signer.signTypedData(typedData(input));
  const validatorData = encodeAbiParameters(VALIDATOR_INPUT, [{ signer: signer.address, signature, incentiveQuantity: input.incentiveQuantity }]);
  return encodeAbiParameters(BOOST_CLAIM_DATA, [{ validatorData, incentiveData: input.incentiveData }]);
}

/** The validator's views the service reads: whether it trusts a signer, and its own digest of a claim. */
export const signerValidatorAbi = parseAbi([
  'function signers(address) view returns (bool)',
  'function hashSignerData(uint256 boostId, uint8 incentiveQuantity, address claimant, bytes incentiveData) view returns (bytes32)',
]);
