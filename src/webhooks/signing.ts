import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (standardwebhooks.com), so a receiver can check a delivery with any
 * of the specification's libraries. Problems never quote the secret: an operator's half-pasted
 * value must not end up in a log.
 */

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A fresh secret, of the size the specification recommends as its lower bound. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

export function secretBytes(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : '';
  // Node's decoder skips characters it does not know; only a canonical encoding is taken, so a
  // mangled secret fails here instead of signing with other bytes than the receiver holds.
  const bytes = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
  if (bytes === undefined || bytes.length === 0 || bytes.toString('base64') !== encoded) {
    throw new Error('a webhook secret is whsec_ followed by base64');
  }
  return bytes;
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  // Receivers parse the header as an integer, so a fraction would sign a text they never rebuild.
  if (!Number.isSafeInteger(timestampSeconds)) throw new Error('a webhook timestamp is a whole number of seconds');
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8');
  return `v1,${mac.digest('base64')}`;
}

/** One signature per secret: while a secret is rotated, receivers holding either the old or the new one accept. */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  if (secrets.length === 0) throw new Error('a webhook needs at least one secret to be signed');
  return secrets.map((secret) => sign(secret, id, timestampSeconds, body)).join(' ');
}

export function webhookHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(secrets, id, timestampSeconds, body),
    'content-type': 'application/json',
  };
}
