/**
 * A price source over DefiLlama's public coins API (https://api-docs.defillama.com/#tag/coins; the
 * OpenAPI document is github.com/DefiLlama/api-docs, defillama-openapi-free.json): it calls
 * `GET {baseUrl}/prices/current/{coins}` and `GET {baseUrl}/prices/historical/{unix seconds}/{coins}`,
 * where `coins` is a comma-separated list of `{chain}:{address}` (`base:0x...`), a native token
 * being asked for by its CoinGecko id (`coingecko:ethereum`). The base URL is `https://coins.llama.fi`
 * (or, with a paid key, `https://pro-api.llama.fi/{key}/coins`). It is the default source because
 * it needs no account or key and prices most tokens on every chain the protocol is deployed on,
 * bridged and DEX-only tokens included; the answer is `{"coins": {"<coin>": {"price", "timestamp",
 * "symbol", "decimals"?, "confidence"?}}}`, a coin it cannot price being simply absent.
 */
import type { Logger } from 'pino';
import { NATIVE_TOKEN_ADDRESS, type OnRefused, type PriceQuote, type PriceSource, PriceSourceError, type TokenRef } from './source.js';

export const DEFILLAMA_SOURCE_NAME = 'defillama';

/**
 * DefiLlama's chain slug and the coin that prices the chain's native token, for the mainnets the
 * protocol is deployed on (src/chain/deployments.ts) and Polygon. Slugs as DefiLlama's SDK names
 * chains (defillama-sdk src/util/indexer.ts, src/util/chainUtils/data.json). DefiLlama prices no
 * testnet (Sepolia, Base Sepolia): their tokens are not quoted.
 */
export const DEFILLAMA_CHAINS: Readonly<Record<number, { slug: string; native: string }>> = {
  1: { slug: 'ethereum', native: 'coingecko:ethereum' },
  10: { slug: 'optimism', native: 'coingecko:ethereum' },
  137: { slug: 'polygon', native: 'coingecko:polygon-ecosystem-token' },
  480: { slug: 'wc', native: 'coingecko:ethereum' },
  999: { slug: 'hyperliquid', native: 'coingecko:hyperliquid' },
  8453: { slug: 'base', native: 'coingecko:ethereum' },
  42161: { slug: 'arbitrum', native: 'coingecko:ethereum' },
  42220: { slug: 'celo', native: 'coingecko:celo' },
};

export interface DefiLlamaSourceOptions {
  /** `https://coins.llama.fi`; a trailing slash is ignored. */
  baseUrl: string;
  /** Time one request may take, answer body included. */
  timeoutMs: number;
  /** Coins asked for in one request; more tokens are asked for in several requests, one after another. */
  maxTokensPerRequest: number;
  logger: Pick<Logger, 'debug' | 'warn'>;
  fetch?: typeof globalThis.fetch;
  /**
   * Sent as `searchWidth` (e.g. `4h`) when set: how far either side of the asked time DefiLlama
   * looks for a price (its default is 6 hours). The API document no longer lists the parameter, so
   * it is not sent unless configured.
   */
  searchWidth?: string;
  /** Refuse a price whose `confidence` is below this (0..1). Prices without a confidence are kept. */
  minConfidence?: number;
  /** The chains quoted; default `DEFILLAMA_CHAINS` (a fork or a local chain can borrow a mainnet's entry). */
  chains?: Readonly<Record<number, { slug: string; native: string }>>;
}

/** An answer larger than this is not a price list: one for a request's coins is far smaller. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Ethereum's genesis block (2015-07-30): no token price is older. */
const EARLIEST_PRICE_TIME_S = 1_438_269_973;
/** A price "from the future" beyond this clock skew is a wrong timestamp (or milliseconds). */
const MAX_FUTURE_SKEW_S = 60 * 60;

const ADDRESS = /^0x[0-9a-f]{40}$/;

export function createDefiLlamaSource(options: DefiLlamaSourceOptions): PriceSource {
  const { timeoutMs, maxTokensPerRequest, logger, searchWidth, minConfidence } = options;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const chains = options.chains ?? DEFILLAMA_CHAINS;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl)) {
    throw new TypeError(`DefiLlama baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  if (!Number.isInteger(maxTokensPerRequest) || maxTokensPerRequest < 1) {
    throw new RangeError(`maxTokensPerRequest must be a positive integer, got ${maxTokensPerRequest}`);
  }
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be > 0, got ${timeoutMs}`);
  const query = searchWidth === undefined ? '' : `?searchWidth=${encodeURIComponent(searchWidth)}`;

  /** The coins to ask for, each with the tokens it prices (several chains' native tokens share one). */
  function coinsFor(tokens: readonly TokenRef[]): Map<string, TokenRef[]> {
    const coins = new Map<string, TokenRef[]>();
    const seen = new Set<string>();
    const unknownChains = new Set<number>();
    for (const token of tokens) {
      const chain = chains[token.chainId];
      if (chain === undefined) {
        unknownChains.add(token.chainId);
        continue;
      }
      const address = token.address.toLowerCase();
      if (!ADDRESS.test(address)) {
        logger.debug({ source: DEFILLAMA_SOURCE_NAME, token }, 'not an address: token not quoted');
        continue;
      }
      const key = `${token.chainId}:${address}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const coin = address === NATIVE_TOKEN_ADDRESS ? chain.native : `${chain.slug}:${address}`;
      const priced = coins.get(coin);
      if (priced) priced.push(token);
      else coins.set(coin, [token]);
    }
    if (unknownChains.size > 0) {
      logger.debug(
        { source: DEFILLAMA_SOURCE_NAME, chainIds: [...unknownChains] },
        'chain not known to DefiLlama: its tokens are not quoted',
      );
    }
    return coins;
  }

  async function quote(tokens: readonly TokenRef[], path: string, signal: AbortSignal | undefined, onRefused: OnRefused | undefined) {
    const coins = coinsFor(tokens);
    const ids = [...coins.keys()];
    const quotes: PriceQuote[] = [];
    for (let start = 0; start < ids.length; start += maxTokensPerRequest) {
      const batch = ids.slice(start, start + maxTokensPerRequest);
      const answer = await request(`${baseUrl}${path}${batch.join(',')}${query}`, signal);
      quotes.push(...readAnswer(answer, batch, coins, onRefused));
    }
    return quotes;
  }

  async function request(url: string, signal: AbortSignal | undefined): Promise<unknown> {
    signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let text: string;
    try {
      const response = await fetchImpl(url, { signal: combined, headers: { accept: 'application/json' } });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw statusError(response);
      }
      text = await readBody(response);
    } catch (error) {
      if (error instanceof PriceSourceError) throw error;
      // The caller stopping (shutdown) is not a fault of the source.
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new PriceSourceError('unavailable', DEFILLAMA_SOURCE_NAME, `no answer within ${timeoutMs} ms`, {
          cause: error,
        });
      }
      throw new PriceSourceError('unavailable', DEFILLAMA_SOURCE_NAME, `request failed: ${describe(error)}`, {
        cause: error,
      });
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new PriceSourceError('bad-answer', DEFILLAMA_SOURCE_NAME, `answer is not JSON: ${excerpt(text)}`, {
        status: 200,
        cause: error,
      });
    }
  }

  function statusError(response: Response): PriceSourceError {
    const status = response.status;
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
    if (status === 429) {
      return new PriceSourceError('rate-limited', DEFILLAMA_SOURCE_NAME, 'rate limited (429)', { status, retryAfterMs });
    }
    if (status >= 500) {
      return new PriceSourceError('unavailable', DEFILLAMA_SOURCE_NAME, `answered ${status}`, { status, retryAfterMs });
    }
    return new PriceSourceError('bad-answer', DEFILLAMA_SOURCE_NAME, `unexpected status ${status}`, { status });
  }

  function readAnswer(answer: unknown, batch: string[], coins: Map<string, TokenRef[]>, onRefused: OnRefused | undefined): PriceQuote[] {
    if (!isObject(answer) || !isObject(answer.coins)) {
      throw new PriceSourceError('bad-answer', DEFILLAMA_SOURCE_NAME, 'answer is not {"coins": {...}}', { status: 200 });
    }
    const asked = new Set(batch);
    const quotes: PriceQuote[] = [];
    const answered = new Set<string>();
    const nowS = Date.now() / 1000;
    for (const [key, entry] of Object.entries(answer.coins)) {
      // Asked for in lowercase; matched without case in case the answer is checksummed.
      const coin = key.toLowerCase();
      if (!asked.has(coin) || answered.has(coin)) continue;
      answered.add(coin);
      const read = readEntry(entry, nowS, minConfidence);
      if (typeof read === 'string') {
        logger.warn({ source: DEFILLAMA_SOURCE_NAME, coin: key, entry, reason: read }, 'price refused');
        for (const token of coins.get(coin) ?? []) onRefused?.({ token, reason: read });
        continue;
      }
      for (const token of coins.get(coin) ?? []) {
        quotes.push({ chainId: token.chainId, address: token.address, ...read, source: DEFILLAMA_SOURCE_NAME });
      }
    }
    if (answered.size < batch.length) {
      logger.debug(
        { source: DEFILLAMA_SOURCE_NAME, coins: batch.filter((coin) => !answered.has(coin)) },
        'no price for these coins',
      );
    }
    return quotes;
  }

  return {
    name: DEFILLAMA_SOURCE_NAME,
    current: (tokens, signal, onRefused) => quote(tokens, '/prices/current/', signal, onRefused),
    historical: async (tokens, at, signal, onRefused) => {
      const ms = at.getTime();
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`historical: not a time: ${String(at)}`);
      return quote(tokens, `/prices/historical/${Math.floor(ms / 1000)}/`, signal, onRefused);
    },
  };
}

/** A price and its time, or why the entry is refused. */
function readEntry(
  entry: unknown,
  nowS: number,
  minConfidence: number | undefined,
): { priceUsd: string; at: Date } | string {
  if (!isObject(entry)) return 'entry is not an object';
  const { price, timestamp, confidence } = entry;
  if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0) {
    return `price ${show(price)} is not a finite number > 0`;
  }
  if (
    typeof timestamp !== 'number' ||
    !Number.isFinite(timestamp) ||
    timestamp < EARLIEST_PRICE_TIME_S ||
    timestamp > nowS + MAX_FUTURE_SKEW_S
  ) {
    return `timestamp ${show(timestamp)} is not a unix time in seconds between 2015-07-30 and now`;
  }
  if (minConfidence !== undefined && confidence !== undefined) {
    if (typeof confidence !== 'number' || !Number.isFinite(confidence)) return `confidence ${show(confidence)} is not a number`;
    if (confidence < minConfidence) return `confidence ${confidence} is below ${minConfidence}`;
  }
  return { priceUsd: decimalString(price), at: new Date(Math.round(timestamp * 1000)) };
}

/**
 * The decimal a JSON number says, without an exponent: `String` gives the shortest text that reads
 * back as the same double (0.1 stays "0.1"), and an exponent form is written out (1e-7 ->
 * "0.0000001", 1.5e+21 -> "1500000000000000000000").
 */
export function decimalString(value: number): string {
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Retry-After as ms from `nowMs`: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date) || !/[a-z]/i.test(value)) return undefined;
  return Math.max(0, date - nowMs);
}

async function readBody(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > MAX_BODY_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (response.body === null) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = () =>
  new PriceSourceError('bad-answer', DEFILLAMA_SOURCE_NAME, `answer larger than ${MAX_BODY_BYTES} bytes`, { status: 200 });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  return typeof value === 'number' || value === undefined ? String(value) : JSON.stringify(value);
}

function excerpt(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}...` : text);
}

/** undici's "fetch failed" hides the reason (ECONNREFUSED, ...) in its cause. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return `${error.message} (${code ?? cause.message})`;
  }
  return error.message;
}
