import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Bearer tokens: 32 random bytes (256 bits), base64url, with a recognisable prefix so a leaked
 * token is easy to spot in a secret scanner. Only the SHA-256 of a token is ever stored.
 */
const TOKEN_PREFIX = 'cs_';
const TOKEN_BYTES = 32;
export const TOKEN_FORMAT = /^cs_[A-Za-z0-9_-]{43}$/;
const TOKENS_IN_TEXT = /cs_[A-Za-z0-9_-]{43}/g;

/** Replaces anything shaped like a token in free text (a URL about to be logged) with a marker. */
export const maskTokens = (text: string) => text.replace(TOKENS_IN_TEXT, 'cs_[redacted]');

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
