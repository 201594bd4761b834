import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pegToAsset } from '../../src/services/peg-conversion.js';

describe('pegToAsset: a pegged amount as an amount of the asset', () => {
  it('converts at the two prices and decimals, rounding down', () => {
    // 2 of an 18-decimal peg at $3, in a 6-decimal asset at $1: 6 of it.
    expect(pegToAsset(2n * 10n ** 18n, { priceUsd: '3', decimals: 18 }, { priceUsd: '1', decimals: 6 })).toBe(6_000_000n);
    // $0.1 of a 6-decimal dollar in an 18-decimal token at $3000.5: 0.1 / 3000.5 = 0.0000333277787..., rounded down.
    expect(pegToAsset(100_000n, { priceUsd: '1.000000000000000000', decimals: 6 }, { priceUsd: '3000.5', decimals: 18 })).toBe(33_327_778_703_549n);
    expect(pegToAsset(1n, { priceUsd: '1', decimals: 18 }, { priceUsd: '2', decimals: 18 })).toBe(0n);
  });

  it('is the exact quotient rounded down, for any amounts, prices and decimals', () => {
    const price = fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 0, max: 18 })).map(([digits, scale]) => {
      const text = digits.toString().padStart(scale + 1, '0');
      return scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
    });
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), price, fc.integer({ min: 0, max: 24 }), price, fc.integer({ min: 0, max: 24 }), (amount, pegPrice, pegDecimals, assetPrice, assetDecimals) => {
        const result = pegToAsset(amount, { priceUsd: pegPrice, decimals: pegDecimals }, { priceUsd: assetPrice, decimals: assetDecimals });
        // result ≤ amount × pegPrice × 10^assetDecimals / (assetPrice × 10^pegDecimals) < result + 1, compared in integers at 10^18 price scale.
        const scaled = (text: string) => BigInt(text.replace('.', '').replace(/^0+(?=\d)/, '')) * 10n ** BigInt(18 - (text.split('.')[1]?.length ?? 0));
        const numerator = amount * scaled(pegPrice) * 10n ** BigInt(assetDecimals);
        const denominator = scaled(assetPrice) * 10n ** BigInt(pegDecimals);
        expect(result * denominator <= numerator).toBe(true);
        expect((result + 1n) * denominator > numerator).toBe(true);
      }),
    );
  });

  it('refuses a price that is not a plain decimal', () => {
    expect(() => pegToAsset(1n, { priceUsd: '1e3', decimals: 18 }, { priceUsd: '1', decimals: 18 })).toThrow(/not a non-negative decimal/);
  });
});
