import { readFileSync } from 'node:fs';

/**
 * The private keys that sign claims, read and checked without deriving anything from them: the
 * settings' check needs no elliptic-curve code, so a server without keys never loads it (the
 * signers themselves: claim-signers.ts). From SIGNER_PRIVATE_KEY (comma-separated) or
 * SIGNER_KEY_FILE (one a line, `#` comments). A problem names the entry's place, never its text: a
 * key half-pasted into the wrong variable must not end up in a log.
 */

export type PrivateKey = `0x${string}`;

export interface SignerKeys {
  keys: PrivateKey[];
  problems: string[];
}

const KEY = /^0x[0-9a-fA-F]{64}$/;
/** The order of secp256k1's group: a private key is a number from 1 to one less than it. */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export function checkSignerKeys(entries: string[], source: string): SignerKeys {
  const keys: PrivateKey[] = [];
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    if (!KEY.test(entry)) {
      problems.push(`${source}: key ${index + 1} is not a 0x-prefixed 32-byte hex private key`);
      return;
    }
    const value = BigInt(entry);
    if (value === 0n || value >= SECP256K1_ORDER) {
      problems.push(`${source}: key ${index + 1} is not a valid secp256k1 private key`);
      return;
    }
    keys.push(entry.toLowerCase() as PrivateKey);
  });
  // One key, one address: a key given twice (in any case) is the same signer twice.
  if (new Set(keys).size !== keys.length) problems.push(`${source}: a key is given twice`);
  return { keys, problems };
}

/** The settings' keys; an unset pair gives none (GET /signatures then answers 503). */
export function readSignerKeys(settings: { SIGNER_PRIVATE_KEY?: string; SIGNER_KEY_FILE?: string }): SignerKeys {
  if (settings.SIGNER_PRIVATE_KEY !== undefined && settings.SIGNER_KEY_FILE !== undefined) {
    return { keys: [], problems: ['SIGNER_PRIVATE_KEY and SIGNER_KEY_FILE are both set; give the keys one way'] };
  }
  if (settings.SIGNER_PRIVATE_KEY !== undefined) {
    return checkSignerKeys(
      settings.SIGNER_PRIVATE_KEY.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''),
      'SIGNER_PRIVATE_KEY',
    );
  }
  if (settings.SIGNER_KEY_FILE !== undefined) {
    let text: string;
    try {
      text = readFileSync(settings.SIGNER_KEY_FILE, 'utf8');
    } catch (error) {
      return { keys: [], problems: [`SIGNER_KEY_FILE: cannot read ${settings.SIGNER_KEY_FILE} (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
    }
    const lines = text
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter((line) => line !== '');
    return checkSignerKeys(lines, 'SIGNER_KEY_FILE');
  }
  return { keys: [], problems: [] };
}
