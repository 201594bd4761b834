import type { DatabaseHandle } from '../db/client.js';
import type { ClaimRecord } from '../ingest/records.js';
import { tokenPrices } from './store.js';

/**
 * A claim's USD and ETH values, from the token prices the database holds when the claim is
 * indexed (the chain has no prices): usdValue = amount / 10^decimals × priceUsd of the incentive's
 * asset, 0 when the asset has no price or the incentive pays points; ethValueWei = usdValue / the
 * price of the chain's native token (stored as token 0x0…0 or 0xeeee…eeee), 0 without one.
 * Values are not revised when prices change later.
 */

const NATIVE = ['0x0000000000000000000000000000000000000000', '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'];
const MAX_USD_MICROS = 10n ** 38n - 1n;

/** A decimal string as an integer scaled by 10^18. */
function scaled18(decimal: string): bigint {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return BigInt(whole) * 10n ** 18n + BigInt((fraction + '0'.repeat(18)).slice(0, 18));
}

const micros = (value: bigint) => `${value / 1_000_000n}.${(value % 1_000_000n).toString().padStart(6, '0')}`;

export async function claimValues(database: DatabaseHandle, chainId: number, claims: { record: ClaimRecord; asset: string | null }[]): Promise<void> {
  if (claims.length === 0) return;
  const assets = [...new Set(claims.map((claim) => claim.asset).filter((asset): asset is string => asset !== null))];
  const prices = await tokenPrices(database, chainId, [...assets, ...NATIVE]);
  const native = NATIVE.map((address) => prices.get(address)?.priceUsd).find((price) => price !== undefined && price !== null);
  const nativeE18 = native ? scaled18(native) : 0n;
  for (const { record, asset } of claims) {
    const token = asset ? prices.get(asset) : undefined;
    if (!token?.priceUsd) continue;
    let usdMicros = (BigInt(record.amount) * scaled18(token.priceUsd)) / 10n ** BigInt(token.decimals) / 10n ** 12n;
    if (usdMicros > MAX_USD_MICROS) usdMicros = MAX_USD_MICROS;
    record.usdValue = micros(usdMicros);
    if (nativeE18 > 0n) record.ethValueWei = ((usdMicros * 10n ** 12n * 10n ** 18n) / nativeE18).toString();
  }
}
