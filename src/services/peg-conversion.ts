/**
 * What a pegged incentive pays: an amount named in its peg token, paid in its asset at the two
 * tokens' prices. Integer arithmetic throughout (prices are decimal text from the database), rounded
 * down, so that a signature never asks for a unit more than the prices give.
 */

export interface TokenAtPrice {
  /** USD, as decimal text ("2.5"). */
  priceUsd: string;
  decimals: number;
}

/** A non-negative decimal as a fraction of integers. */
function fraction(decimal: string): { numerator: bigint; denominator: bigint } {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(decimal);
  if (match === null) throw new Error(`not a non-negative decimal: ${decimal}`);
  const digits = match[2] ?? '';
  return { numerator: BigInt(match[1]! + digits), denominator: 10n ** BigInt(digits.length) };
}

/** `amount` of the peg (in its smallest units) as an amount of the asset (in its smallest units). */
export function pegToAsset(amount: bigint, peg: TokenAtPrice, asset: TokenAtPrice): bigint {
  const pegPrice = fraction(peg.priceUsd);
  const assetPrice = fraction(asset.priceUsd);
  // amount / 10^pegDecimals × pegPrice = result / 10^assetDecimals × assetPrice
  const numerator = amount * pegPrice.numerator * assetPrice.denominator * 10n ** BigInt(asset.decimals);
  const denominator = pegPrice.denominator * assetPrice.numerator * 10n ** BigInt(peg.decimals);
  if (denominator === 0n) throw new Error('the asset has no price above zero');
  return numerator / denominator;
}
