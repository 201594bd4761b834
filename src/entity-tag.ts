import { hash } from 'node:crypto';

/** A strong ETag for a body: its SHA-1, base64url, quoted (RFC 9110 8.8.3). */
export function entityTag(body: string | Buffer): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}
