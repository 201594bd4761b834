import { describe, expect, it } from 'vitest';
import { SignerTrustCheck } from '../../src/services/signer-trust-check.js';
import type { ValidatorRef } from '../../src/services/claim-signatures.js';

/** A logger that keeps what it was given. */
function recordingLogger() {
  const lines: { level: 'info' | 'warn'; details: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    info: (details: Record<string, unknown>, message: string) => void lines.push({ level: 'info', details, message }),
    warn: (details: Record<string, unknown>, message: string) => void lines.push({ level: 'warn', details, message }),
  };
}

const VALIDATORS: ValidatorRef[] = [
  { chainId: 8453, validator: `0x${'01'.repeat(20)}` },
  { chainId: 8453, validator: `0x${'02'.repeat(20)}` },
];

describe('the start-up check of the validators trusting the signing keys', () => {
  it('waits for start-up work, asks once, and logs info when every validator it asked trusts a key', async () => {
    let pending: string | undefined = 'migrations';
    let asked = 0;
    const logger = recordingLogger();
    const check = new SignerTrustCheck({
      canSign: true,
      validators: async () => VALIDATORS,
      check: async (validators) => (asked++, { trusting: validators.length, refusing: [], unreadable: 0 }),
      startup: { pending: () => pending },
      signers: ['0xabc'],
      logger: logger as never,
      retryMs: 10,
    });
    check.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(asked).toBe(0);
    pending = undefined;
    await check.checked;
    await new Promise((resolve) => setTimeout(resolve, 50));
    await check.close();
    expect(asked).toBe(1);
    expect(logger.lines).toEqual([
      { level: 'info', details: { signers: ['0xabc'], checked: 2, trusting: 2, refusing: 0, unreadable: 0 }, message: "GET /signatures: 2 of the active campaigns' validators checked trust a key of this service" },
    ]);
  });

  it('warns, naming validators that trust no key; a failing read is logged once and tried again', async () => {
    let reads = 0;
    const logger = recordingLogger();
    const check = new SignerTrustCheck({
      canSign: true,
      validators: async () => {
        if (++reads <= 2) throw new Error('database unavailable');
        return VALIDATORS;
      },
      check: async () => ({ trusting: 1, refusing: [VALIDATORS[1]!], unreadable: 0 }),
      startup: { pending: () => undefined },
      signers: ['0xabc'],
      logger: logger as never,
      retryMs: 10,
    });
    check.start();
    await check.checked;
    await check.close();
    expect(logger.lines.map(({ level, message }) => [level, message])).toEqual([
      ['warn', 'GET /signatures could not check the validators of the active campaigns; it tries again'],
      ['warn', expect.stringMatching(/^GET \/signatures: 1 of the active campaigns' validators checked trust none of this service's keys/)],
    ]);
    expect(logger.lines[1]!.details).toMatchObject({ refusing: 1, examples: [`8453:0x${'02'.repeat(20)}`] });
  });

  it('does nothing without a key', async () => {
    let asked = false;
    const check = new SignerTrustCheck({
      canSign: false,
      validators: async () => ((asked = true), VALIDATORS),
      check: async () => ({ trusting: 0, refusing: [], unreadable: 0 }),
      startup: { pending: () => undefined },
      signers: [],
      logger: recordingLogger() as never,
      retryMs: 10,
    });
    check.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await check.close();
    expect(asked).toBe(false);
  });
});
