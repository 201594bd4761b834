/**
 * What every price source gives the price job: USD prices of tokens, now or at a past time, each
 * with the time the price itself is from. A source quotes what it can and leaves out the rest (an
 * unknown chain, a token it has no price for, a value it refused); it tells `onRefused` of each value
 * it refused, because a refused value is not the absence of a price: the source had one, wrong for
 * now, and may have a right one when asked again. It throws a `PriceSourceError` when it could not
 * answer at all, and never retries by itself: the caller's loop owns backoff.
 */

/** The native token of every chain (ETH on Ethereum, Base, ...), as the indexer stores it. */
export const NATIVE_TOKEN_ADDRESS = '0x0000000000000000000000000000000000000000';

export interface TokenRef {
  chainId: number;
  /** Lowercase hex; the native token is `NATIVE_TOKEN_ADDRESS`. */
  address: string;
}

export interface PriceQuote {
  chainId: number;
  /** As in the `TokenRef` asked for. */
  address: string;
  /** USD per whole token, a plain decimal string (no exponent), always > 0. */
  priceUsd: string;
  /** The time the price is from, as the source says: not when it was asked for. */
  at: Date;
  /** The source's `name`. */
  source: string;
}

/** A value a source was answered for a token and refused (not a price > 0, a bad time, a low confidence). */
export interface RefusedPrice {
  token: TokenRef;
  reason: string;
}

export type OnRefused = (refused: RefusedPrice) => void;

export interface PriceSource {
  readonly name: string;
  /** Latest prices. Tokens the source has no price for, or refused the value of, are left out. */
  current(tokens: readonly TokenRef[], signal?: AbortSignal, onRefused?: OnRefused): Promise<PriceQuote[]>;
  /**
   * Prices near `at`. The quote's own `at` says how near: the caller decides what tolerance to
   * accept. Tokens the source has no price for, or refused the value of, are left out.
   */
  historical(tokens: readonly TokenRef[], at: Date, signal?: AbortSignal, onRefused?: OnRefused): Promise<PriceQuote[]>;
}

/**
 * - `rate-limited`: the source said too many requests; wait `retryAfterMs` when it is given.
 * - `unavailable`: no answer (connection refused or reset, timeout) or a 5xx; transient, retry with backoff.
 * - `bad-answer`: the source answered, but not with something usable (a body that is not the
 *   documented shape, an unexpected status such as 400 or 403); retrying soon is unlikely to help.
 */
export type PriceSourceErrorKind = 'rate-limited' | 'unavailable' | 'bad-answer';

export class PriceSourceError extends Error {
  override readonly name = 'PriceSourceError';
  readonly kind: PriceSourceErrorKind;
  readonly source: string;
  /** The HTTP status, when there was one. */
  readonly status: number | undefined;
  /** From the answer's Retry-After (seconds or an HTTP date), in ms from when it arrived; 0 if the date is past. */
  readonly retryAfterMs: number | undefined;

  constructor(
    kind: PriceSourceErrorKind,
    source: string,
    message: string,
    details: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(`${source}: ${message}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.source = source;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
  }
}
