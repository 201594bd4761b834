import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import type { ClaimSigner } from './claim-payload.js';

/**
 * The keys that sign claims, from SIGNER_PRIVATE_KEY (comma-separated) or SIGNER_KEY_FILE (one a
 * line, `#` comments). A problem names the entry's place, never its text: a key half-pasted into
 * the wrong variable must not end up in a log.
 */

const KEY = /^0x[0-9a-fA-F]{64}$/;

export interface ParsedSigners {
  signers: ClaimSigner[];
  problems: string[];
}

export function parseSignerKeys(entries: string[], source: string): ParsedSigners {
  const signers: ClaimSigner[] = [];
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    if (!KEY.test(entry)) {
      problems.push(`${source}: key ${index + 1} is not a 0x-prefixed 32-byte hex private key`);
      return;
    }
    try {
      signers.push(privateKeyToAccount(entry as `0x${string}`));
    } catch {
      problems.push(`${source}: key ${index + 1} is not a valid secp256k1 private key`);
    }
  });
  const addresses = signers.map((signer) => signer.address.toLowerCase());
  if (new Set(addresses).size !== addresses.length) problems.push(`${source}: a key is given twice`);
  return { signers, problems };
}

/** The settings' keys; an unset pair gives no signer (GET /signatures then answers 503). */
export function loadSignerKeys(settings: { SIGNER_PRIVATE_KEY?: string; SIGNER_KEY_FILE?: string }): ParsedSigners {
  if (settings.SIGNER_PRIVATE_KEY !== undefined && settings.SIGNER_KEY_FILE !== undefined) {
    return { signers: [], problems: ['SIGNER_PRIVATE_KEY and SIGNER_KEY_FILE are both set; give the keys one way'] };
  }
  if (settings.SIGNER_PRIVATE_KEY !== undefined) {
    return parseSignerKeys(
      settings.SIGNER_PRIVATE_KEY.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''),
      'SIGNER_PRIVATE_KEY',
    );
  }
  if (settings.SIGNER_KEY_FILE !== undefined) {
    let text: string;
    try {
      text = readFileSync(settings.SIGNER_KEY_FILE, 'utf8');
    } catch (error) {
      return { signers: [], problems: [`SIGNER_KEY_FILE: cannot read ${settings.SIGNER_KEY_FILE} (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
    }
    const lines = text
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter((line) => line !== '');
    return parseSignerKeys(lines, 'SIGNER_KEY_FILE');
  }
  return { signers: [], problems: [] };
}
