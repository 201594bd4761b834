import { HttpError, serviceUnavailable } from '../errors.js';
import type { SignaturesRepository, SigningCampaign } from '../repositories/signatures.repository.js';

/** The first check of every request, with a key or without: the campaign exists (404) and is active (410). */
export async function signableCampaign(repository: SignaturesRepository, campaignId: string, now: Date): Promise<SigningCampaign> {
  const campaign = await repository.findCampaign(campaignId, now);
  if (campaign === null) throw new HttpError(404, `campaign ${campaignId} not found`);
  if (!campaign.active) throw new HttpError(410, `campaign ${campaignId} is not active`);
  return campaign;
}

export const noSigningKey = () => serviceUnavailable('this service has no signing key (SIGNER_PRIVATE_KEY or SIGNER_KEY_FILE)');
