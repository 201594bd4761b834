import { describe, expect, it } from 'vitest';
import { formatUnits, microsToNumber, parseMicros, usdMicrosOf } from '../../src/services/amounts.js';

const HUGE = 10n ** 77n * 9n + 123456789n; // 78 digits

describe('amounts', () => {
  it.each([
    [0n, 0, '0'],
    [0n, 18, '0'],
    [1234n, 0, '1234'],
    [1_500_000n, 6, '1.5'],
    [1n, 6, '0.000001'],
    [10n ** 18n, 18, '1'],
    [1n, 18, '0.000000000000000001'],
    [123_456_789_000_000_000_000_000n, 18, '123456.789'],
    [HUGE, 18, '900000000000000000000000000000000000000000000000000000000000.000000000123456789'],
    [HUGE, 0, HUGE.toString()],
  ])('formats %s with %i decimals as %s, exactly', (amount, decimals, expected) => {
    expect(formatUnits(amount, decimals)).toBe(expected);
  });

  it('parses USD decimals into micro-dollars without rounding', () => {
    expect(parseMicros('0')).toBe(0);
    expect(parseMicros('12.5')).toBe(12_500_000);
    expect(parseMicros('0.000001')).toBe(1);
    expect(parseMicros('-3.250000')).toBe(-3_250_000);
    // The largest USD volume a window holds exactly: 2^53 micro-dollars.
    expect(parseMicros('9007199254.740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('values base units at a decimal price, rounding down to the micro-dollar', () => {
    expect(usdMicrosOf(1_500_000n, 6, '1')).toBe(1_500_000n);
    expect(usdMicrosOf(10n ** 18n, 18, '3412.55')).toBe(3_412_550_000n);
    expect(usdMicrosOf(1n, 18, '3412.55')).toBe(0n);
    expect(usdMicrosOf(HUGE, 18, null)).toBe(0n);
    expect(microsToNumber(500_123_457n)).toBe(500.123457);
  });
});
