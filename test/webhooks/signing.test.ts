import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSecret, secretBytes, sign, signatureHeader, webhookHeaders } from '../../src/webhooks/signing.js';

/**
 * Signatures against the specification's reference: its own test vector, and the official
 * `standardwebhooks` verifier taking what `webhookHeaders` sends.
 */

// The vector of the official JavaScript library's test "sign function works" (libraries/javascript/src/webhook.test.ts).
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const body = JSON.stringify({ type: 'claim.signed', data: { campaignId: 7, claimant: '0x0000000000000000000000000000000000000001' } });
const now = () => Math.floor(Date.now() / 1000);

describe('webhook signing', () => {
  it("signs the specification's test vector", () => {
    expect(sign(vector.secret, vector.id, vector.timestamp, vector.payload)).toBe(vector.signature);
    // The installed library agrees, so the vector was copied right.
    expect(new Webhook(vector.secret).sign(vector.id, new Date(vector.timestamp * 1000), vector.payload)).toBe(vector.signature);
  });

  it('makes secrets of 24 random bytes that the official library takes', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(secretBytes(secret)).toHaveLength(24);
    expect(generateSecret()).not.toBe(secret);
    expect(() => new Webhook(secret)).not.toThrow();
  });

  describe('with the official verifier', () => {
    it('accepts the headers webhookHeaders sends', () => {
      const secret = generateSecret();
      const headers = webhookHeaders([secret], 'msg_1', now(), body);
      expect(headers['content-type']).toBe('application/json');
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    });

    it('rejects a body changed by one byte', () => {
      const secret = generateSecret();
      const headers = webhookHeaders([secret], 'msg_1', now(), body);
      const changed = body.replace('"campaignId":7', '"campaignId":8');
      expect(changed).toHaveLength(body.length);
      expect(() => new Webhook(secret).verify(changed, headers)).toThrow(WebhookVerificationError);
    });

    it('rejects a signature made with another secret', () => {
      const headers = webhookHeaders([generateSecret()], 'msg_1', now(), body);
      expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
    });

    it('accepts, while a secret is rotated, a receiver holding either the old or the new one', () => {
      const [previous, next] = [generateSecret(), generateSecret()];
      const headers = webhookHeaders([previous, next], 'msg_1', now(), body);
      expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
      expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
      expect(new Webhook(next).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
    });
  });

  it('sends the timestamp as whole seconds, and only whole seconds', () => {
    expect(webhookHeaders([vector.secret], vector.id, vector.timestamp, vector.payload)).toEqual({
      'webhook-id': vector.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': vector.signature,
      'content-type': 'application/json',
    });
    expect(() => sign(vector.secret, vector.id, 1614265330.5, vector.payload)).toThrow('a webhook timestamp is a whole number of seconds');
  });

  it('needs at least one secret', () => {
    expect(() => signatureHeader([], 'msg_1', now(), body)).toThrow('a webhook needs at least one secret');
  });

  it('refuses a secret that is not whsec_ and base64, without quoting it', () => {
    const bad = [
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', // no prefix
      'whsec_',
      'whsec_not base64!',
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS', // truncated: not a whole base64 encoding
      'whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n',
    ];
    for (const secret of bad) {
      let message = '';
      try {
        secretBytes(secret);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, JSON.stringify(secret)).toBe('a webhook secret is whsec_ followed by base64');
      expect(() => sign(secret, 'msg_1', now(), body)).toThrow('a webhook secret is whsec_ followed by base64');
    }
  });
});
