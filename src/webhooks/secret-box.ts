import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Webhook secrets at rest, sealed with AES-256-GCM under the operator's WEBHOOK_SECRET_KEY: a copy
 * of the database alone does not let anyone sign as the service. The optional context (the
 * endpoint's id, say) is authenticated with the secret, so a sealed value copied to another row
 * does not open there.
 */

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const KEY_PROBLEM = 'WEBHOOK_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32 makes one)';
const SEALED_PROBLEM = 'a sealed webhook secret is not in the v1:<iv>:<ciphertext>:<tag> form';
const OPEN_PROBLEM = 'a webhook secret could not be decrypted: WEBHOOK_SECRET_KEY is not the key it was sealed with';

/** Node's decoder skips characters it does not know; only a canonical encoding is taken. */
function strictBase64(text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

export class SecretBox {
  readonly #key: Buffer;

  constructor(keyBase64: string) {
    const key = strictBase64(keyBase64.trim());
    if (key === undefined || key.length !== KEY_BYTES) throw new Error(KEY_PROBLEM);
    this.#key = key;
  }

  seal(plain: string, context?: string): string {
    // GCM loses both secrecy and integrity if an IV is ever used twice under one key.
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, iv, { authTagLength: TAG_BYTES });
    if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [FORMAT, iv.toString('base64'), ciphertext.toString('base64'), cipher.getAuthTag().toString('base64')].join(':');
  }

  open(sealed: string, context?: string): string {
    const [format, ...encoded] = sealed.split(':');
    const parts = encoded.map(strictBase64);
    const [iv, ciphertext, tag] = parts;
    if (format !== FORMAT || parts.length !== 3 || iv?.length !== IV_BYTES || ciphertext === undefined || tag?.length !== TAG_BYTES) {
      throw new Error(SEALED_PROBLEM);
    }
    // A fixed tag length: GCM would otherwise accept a truncated tag, which is far easier to forge.
    const decipher = createDecipheriv(ALGORITHM, this.#key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(OPEN_PROBLEM);
    }
  }
}
