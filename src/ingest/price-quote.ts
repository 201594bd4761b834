import type { PriceQuote } from '../prices/source.js';

/**
 * What a price must be to enter the price history (token_prices), whoever writes it: the price
 * job's quotes (writePrices(), prices.ts) and an import's price records (records.ts, validate.ts)
 * are held to these same rules, and refused with these words.
 */

/** The `source` of the history's rows an import wrote (a token record's price, a price record). */
export const IMPORT_SOURCE = 'import';

/**
 * How far a price may be from its token's nearest known price within a day, either way: a real move
 * that large within a day is rarer than a source's error, and a refused real price is only a claim
 * valued later (the next quote compares with the same neighbours; an operator can import the price).
 */
export const MAX_PRICE_JUMP = 5;

/**
 * A USD price as token_prices keeps it (numeric(38,18), > 0): a plain decimal, no sign, no exponent,
 * not zero. One pattern for the import's JSON Schema and the price job's check.
 */
export const PRICE_PATTERN = '^(?!0+(\\.0+)?$)(0|[1-9][0-9]{0,19})(\\.[0-9]{1,18})?$';
export const PRICE_RULE = 'must be a decimal string greater than 0, with at most 20 digits before the point and 18 after';
const PRICE = new RegExp(PRICE_PATTERN);
const ADDRESS = /^0x[0-9a-f]{40}$/;
const MAX_CHAIN_ID = 2 ** 31 - 1;

export interface QuoteProblem {
  field: 'chainId' | 'address' | 'at' | 'priceUsd';
  /** Completes the field's name: `priceUsd must be …`. */
  rule: string;
}

/** Why a quote cannot be stored, whatever the history holds; undefined when it can. */
export function quoteProblem(quote: Pick<PriceQuote, 'chainId' | 'address' | 'at' | 'priceUsd'>): QuoteProblem | undefined {
  if (!Number.isInteger(quote.chainId) || quote.chainId <= 0 || quote.chainId > MAX_CHAIN_ID) {
    return { field: 'chainId', rule: `must be a chain id, an integer from 1 to ${MAX_CHAIN_ID}` };
  }
  if (typeof quote.address !== 'string' || !ADDRESS.test(quote.address.toLowerCase())) {
    return { field: 'address', rule: 'must be an address: 0x followed by 40 hexadecimal characters' };
  }
  if (!(quote.at instanceof Date) || Number.isNaN(quote.at.getTime())) return { field: 'at', rule: 'must be a time that exists' };
  if (typeof quote.priceUsd !== 'string' || !PRICE.test(quote.priceUsd)) return { field: 'priceUsd', rule: PRICE_RULE };
  return undefined;
}
