import type { Logger } from 'pino';
import type { Database } from '../db/client.js';
import type { IssuedSignature, SignaturesRepository } from '../repositories/signatures.repository.js';
import type { ClaimSignatures, ClaimSignaturesConfig, SignatureRequest, ValidatorCheck } from './claim-signatures.js';
import { noSigningKey, signableCampaign } from './signable-campaign.js';

/** What the API asks of GET /signatures' service (ClaimSignatures, or KeylessSigning without a key). */
export type ClaimSigning = Pick<ClaimSignatures, 'canSign' | 'signerAddresses' | 'issue' | 'checkValidators'>;

/** A server without a signing key: it answers as ClaimSignatures does then, without loading the chain's code. */
class KeylessSigning implements ClaimSigning {
  readonly canSign = false;
  readonly signerAddresses: string[] = [];

  constructor(
    private readonly repository: SignaturesRepository,
    private readonly clock: () => Date,
  ) {}

  async issue(request: SignatureRequest): Promise<IssuedSignature[]> {
    await signableCampaign(this.repository, request.campaignId, this.clock());
    throw noSigningKey();
  }

  async checkValidators(): Promise<ValidatorCheck> {
    return { trusting: 0, refusing: [], unreadable: 0 };
  }
}

/**
 * GET /signatures' service for these settings. Only a server with a signing key loads
 * ClaimSignatures and what it checks a transaction with (viem, the action steps' semantics, the
 * JSON-RPC clients): a large share of the code a server would otherwise hold in memory for nothing.
 */
export async function createClaimSigning(
  config: ClaimSignaturesConfig,
  dependencies: { repository: SignaturesRepository; write: Database; clock: () => Date; logger: Pick<Logger, 'warn' | 'info'> },
): Promise<ClaimSigning> {
  // The settings alone decide, without reading a key file again (loadConfig has checked the keys;
  // a file that turns out to hold none gives a ClaimSignatures without signers, which answers alike).
  if (config.SIGNER_PRIVATE_KEY === undefined && config.SIGNER_KEY_FILE === undefined) {
    return new KeylessSigning(dependencies.repository, dependencies.clock);
  }
  const { createClaimSignatures } = await import('./claim-signatures.js');
  return createClaimSignatures(config, dependencies);
}
