import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Bearer tokens: 32 random bytes (256 bits), base64url, with a recognisable prefix so a leaked
 * token is easy to spot in a secret scanner. Only the SHA-256 of a token is ever stored.
 *
 * In the base layer because the logger masks tokens and the api-tokens repository makes and
 * hashes them; the bearer-auth plugin (src/auth/) checks their shape with the same pattern.
 */
const TOKEN_PREFIX = 'cs_';
const TOKEN_BYTES = 32;
/** base64url without padding: 43 characters for 32 bytes. */
const TOKEN_BODY = `[A-Za-z0-9_-]{${Math.ceil((TOKEN_BYTES * 8) / 6)}}`;
export const TOKEN_FORMAT = new RegExp(`^${TOKEN_PREFIX}${TOKEN_BODY}$`);
const TOKENS_IN_TEXT = new RegExp(`${TOKEN_PREFIX}${TOKEN_BODY}`, 'g');

/** Replaces anything shaped like a token in free text (a URL about to be logged) with a marker. */
export const maskTokens = (text: string) => text.replace(TOKENS_IN_TEXT, `${TOKEN_PREFIX}[redacted]`);

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time equality of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
