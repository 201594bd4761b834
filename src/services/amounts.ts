/**
 * USD amounts as integers of micro-dollars: the claims table stores USD with six decimals, so sums
 * of them are exact integers, held in doubles (exact up to 2^53 micro-dollars, about $9 billion).
 */
export function parseMicros(decimal: string): number {
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  const micros = Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6) || '0');
  return negative ? -micros : micros;
}

/** Dollars as a JSON number. */
export function microsToNumber(micros: number | bigint): number {
  return Number(micros) / 1_000_000;
}

/**
 * `amount / 10^decimals` as an exact decimal string without trailing zeros: no floating point
 * touches the amount, so 78-digit values format exactly.
 */
export function formatUnits(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** The USD value of `amount` base units at `priceUsd` (a decimal string), in micro-dollars, rounded down. */
export function usdMicrosOf(amount: bigint, decimals: number, priceUsd: string | null): bigint {
  if (priceUsd === null) return 0n;
  const [whole = '0', fraction = ''] = priceUsd.split('.');
  const priceScale = fraction.length;
  const price = BigInt(whole + fraction);
  return (amount * price * 1_000_000n) / 10n ** BigInt(decimals + priceScale);
}
