import { privateKeyToAccount } from 'viem/accounts';
import type { ClaimSigner } from './claim-payload.js';
import { readSignerKeys } from './signer-keys.js';

export interface ParsedSigners {
  signers: ClaimSigner[];
  problems: string[];
}

/** The signers of the settings' keys (signer-keys.ts reads and checks them). */
export function loadSignerKeys(settings: { SIGNER_PRIVATE_KEY?: string; SIGNER_KEY_FILE?: string }): ParsedSigners {
  const { keys, problems } = readSignerKeys(settings);
  return { signers: keys.map((key) => privateKeyToAccount(key)), problems };
}
