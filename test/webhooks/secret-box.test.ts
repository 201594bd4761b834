import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/webhooks/secret-box.js';

const newKey = () => randomBytes(32).toString('base64');
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const openProblem = 'a webhook secret could not be decrypted: WEBHOOK_SECRET_KEY is not the key it was sealed with';

/** Replaces one base64 part of a sealed value with the same bytes, one bit flipped. */
function flipBit(sealed: string, part: 1 | 2 | 3): string {
  const parts = sealed.split(':');
  const bytes = Buffer.from(parts[part] ?? '', 'base64');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[part] = bytes.toString('base64');
  return parts.join(':');
}

describe('SecretBox', () => {
  it('opens what it sealed, with or without a context', () => {
    const box = new SecretBox(newKey());
    expect(box.open(box.seal(secret))).toBe(secret);
    expect(box.open(box.seal(secret, 'endpoint-1'), 'endpoint-1')).toBe(secret);
    expect(box.open(box.seal(''))).toBe('');
    expect(box.open(box.seal('é ✓ 🔑'))).toBe('é ✓ 🔑');
    // A key read from a file keeps its line end.
    const key = newKey();
    expect(new SecretBox(`${key}\n`).open(new SecretBox(key).seal(secret))).toBe(secret);
  });

  it('seals as v1:<iv>:<ciphertext>:<tag>, with a fresh IV each time', () => {
    const box = new SecretBox(newKey());
    const first = box.seal(secret);
    const second = box.seal(secret);
    expect(first).not.toBe(second);
    const [format, iv, ciphertext, tag] = first.split(':');
    expect(format).toBe('v1');
    expect(Buffer.from(iv ?? '', 'base64')).toHaveLength(12);
    expect(Buffer.from(ciphertext ?? '', 'base64')).toHaveLength(Buffer.byteLength(secret));
    expect(Buffer.from(tag ?? '', 'base64')).toHaveLength(16);
    expect(first).not.toContain(secret.slice('whsec_'.length));
  });

  it('refuses to open with another key', () => {
    const sealed = new SecretBox(newKey()).seal(secret);
    expect(() => new SecretBox(newKey()).open(sealed)).toThrow(openProblem);
  });

  it('refuses a changed IV, ciphertext or tag', () => {
    const box = new SecretBox(newKey());
    const sealed = box.seal(secret);
    for (const part of [1, 2, 3] as const) expect(() => box.open(flipBit(sealed, part))).toThrow(openProblem);
  });

  it('refuses a value sealed for another context, or for none', () => {
    const box = new SecretBox(newKey());
    expect(() => box.open(box.seal(secret, 'endpoint-1'), 'endpoint-2')).toThrow(openProblem);
    expect(() => box.open(box.seal(secret, 'endpoint-1'))).toThrow(openProblem);
    expect(() => box.open(box.seal(secret), 'endpoint-1')).toThrow(openProblem);
  });

  it('refuses a value that is not in the sealed form', () => {
    const box = new SecretBox(newKey());
    const [, iv = '', ciphertext = '', tag = ''] = box.seal(secret).split(':');
    const shortTag = Buffer.from(tag, 'base64').subarray(0, 12).toString('base64');
    for (const sealed of [secret, `v2:${iv}:${ciphertext}:${tag}`, `v1:${iv}:${ciphertext}`, `v1:${iv}:${ciphertext}:${shortTag}`, `v1:${iv}:${ciphertext}:${tag}:x`]) {
      expect(() => box.open(sealed)).toThrow('a sealed webhook secret is not in the v1:<iv>:<ciphertext>:<tag> form');
    }
  });

  it('refuses a key that is not 32 bytes of base64, without quoting it', () => {
    for (const key of ['', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), 'not base64 at all, not even close!!', randomBytes(32).toString('hex')]) {
      let message = '';
      try {
        new SecretBox(key);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe('WEBHOOK_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32 makes one)');
    }
  });
});
