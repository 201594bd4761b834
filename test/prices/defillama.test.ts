import fc from 'fast-check';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CORES } from '../../src/chain/deployments.js';
import {
  createDefiLlamaSource,
  DEFILLAMA_CHAINS,
  type DefiLlamaSourceOptions,
  decimalString,
  parseRetryAfter,
} from '../../src/prices/defillama.js';
import { NATIVE_TOKEN_ADDRESS, PriceSourceError, type RefusedPrice, type TokenRef } from '../../src/prices/source.js';
import { type DefiLlamaStandIn, RawJson, startDefiLlamaStandIn, type StandInPoint } from '../../scripts/chain/defillama-stand-in.js';

const USDC_BASE = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const USDC_ETHEREUM = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const OP_OPTIMISM = '0x4200000000000000000000000000000000000042';
const DEGEN_BASE = '0x4ed4e862860bed51a9570b96d89af5e1b0efefed';
const ARB_ARBITRUM = '0x912ce59144191c1204e64559fe8253a0e49e6548';

const token = (chainId: number, address: string): TokenRef => ({ chainId, address });
const nowS = () => Math.floor(Date.now() / 1000);

let standIn: DefiLlamaStandIn;
let logs: Array<Record<string, unknown> & { msg: string; level: number }>;

function source(options: Partial<DefiLlamaSourceOptions> = {}) {
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as never) });
  return createDefiLlamaSource({
    baseUrl: standIn.url,
    timeoutMs: 2_000,
    maxTokensPerRequest: 10,
    logger,
    ...options,
  });
}

/** The rejection of `promise`, which must be a PriceSourceError. */
async function fault(promise: Promise<unknown>): Promise<PriceSourceError> {
  const error: unknown = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PriceSourceError);
  return error as PriceSourceError;
}

beforeEach(async () => {
  logs = [];
  standIn = await startDefiLlamaStandIn();
});

afterEach(async () => {
  await standIn.close();
});

describe('current prices', () => {
  it('asks for chain:address and coingecko ids and quotes each token at the price and time answered', async () => {
    const priceTime = nowS() - 120;
    standIn.setPrice(`base:${USDC_BASE}`, { at: priceTime, price: 0.999912 });
    standIn.setPrice(`ethereum:${USDC_ETHEREUM}`, { at: priceTime - 60, price: 1.0001 });
    standIn.setPrice('coingecko:ethereum', { at: priceTime, price: 3456.78 });
    standIn.setPrice('coingecko:celo', { at: priceTime, price: 0.31 });

    const quotes = await source().current([
      token(8453, USDC_BASE),
      token(1, USDC_ETHEREUM),
      token(8453, NATIVE_TOKEN_ADDRESS),
      token(10, NATIVE_TOKEN_ADDRESS),
      token(42220, NATIVE_TOKEN_ADDRESS),
    ]);

    expect(standIn.requests).toHaveLength(1);
    expect(standIn.requests[0]!.path).toBe(
      `/prices/current/base:${USDC_BASE},ethereum:${USDC_ETHEREUM},coingecko:ethereum,coingecko:celo`,
    );
    expect(sorted(quotes)).toEqual(
      sorted([
        { chainId: 8453, address: USDC_BASE, priceUsd: '0.999912', at: new Date(priceTime * 1000), source: 'defillama' },
        { chainId: 1, address: USDC_ETHEREUM, priceUsd: '1.0001', at: new Date((priceTime - 60) * 1000), source: 'defillama' },
        // One coin prices the native token of every chain whose gas is ETH.
        { chainId: 8453, address: NATIVE_TOKEN_ADDRESS, priceUsd: '3456.78', at: new Date(priceTime * 1000), source: 'defillama' },
        { chainId: 10, address: NATIVE_TOKEN_ADDRESS, priceUsd: '3456.78', at: new Date(priceTime * 1000), source: 'defillama' },
        { chainId: 42220, address: NATIVE_TOKEN_ADDRESS, priceUsd: '0.31', at: new Date(priceTime * 1000), source: 'defillama' },
      ]),
    );
  });

  it('sends searchWidth only when configured', async () => {
    standIn.setPrice(`base:${USDC_BASE}`, { at: nowS() - 5 * 3600, price: 1 });
    // Five hours old: inside the default six hours, outside four.
    expect(await source().current([token(8453, USDC_BASE)])).toHaveLength(1);
    expect(await source({ searchWidth: '4h' }).current([token(8453, USDC_BASE)])).toEqual([]);
    expect(standIn.requests.map((request) => request.searchWidth)).toEqual([undefined, '4h']);
  });

  it('quotes nothing and asks nothing for an empty list', async () => {
    expect(await source().current([])).toEqual([]);
    expect(standIn.requests).toHaveLength(0);
  });
});

describe('historical prices', () => {
  it('asks at the unix second and quotes the price with its own time, not the time asked', async () => {
    const asked = new Date('2025-03-01T12:00:00.750Z');
    const askedS = Math.floor(asked.getTime() / 1000);
    standIn.setPrice(`base:${USDC_BASE}`, { at: askedS - 3 * 3600, price: 1.002 });
    standIn.setPrice(`base:${USDC_BASE}`, { at: askedS - 240, price: 0.998 });
    standIn.setPrice(`base:${USDC_BASE}`, { at: askedS + 2 * 3600, price: 1.01 });
    standIn.setPrice('coingecko:ethereum', { at: askedS + 30, price: 2210.5 });
    standIn.setPrice('coingecko:ethereum', { at: nowS(), price: 3456.78 });

    const quotes = await source().historical([token(8453, USDC_BASE), token(42161, NATIVE_TOKEN_ADDRESS)], asked);

    expect(standIn.requests.map((request) => request.path)).toEqual([
      `/prices/historical/${askedS}/base:${USDC_BASE},coingecko:ethereum`,
    ]);
    expect(sorted(quotes)).toEqual(
      sorted([
        { chainId: 8453, address: USDC_BASE, priceUsd: '0.998', at: new Date((askedS - 240) * 1000), source: 'defillama' },
        { chainId: 42161, address: NATIVE_TOKEN_ADDRESS, priceUsd: '2210.5', at: new Date((askedS + 30) * 1000), source: 'defillama' },
      ]),
    );
  });

  it('leaves out a token with no price near the time asked', async () => {
    const asked = new Date('2025-03-01T12:00:00Z');
    standIn.setPrice(`base:${USDC_BASE}`, { at: asked.getTime() / 1000 - 2 * 86_400, price: 1 });
    expect(await source().historical([token(8453, USDC_BASE)], asked)).toEqual([]);
    expect(standIn.requests).toHaveLength(1);
  });

  it('refuses a time that is not one, without asking', async () => {
    await expect(source().historical([token(8453, USDC_BASE)], new Date(Number.NaN))).rejects.toThrow(RangeError);
    expect(standIn.requests).toHaveLength(0);
  });
});

describe('batching', () => {
  it('asks for at most maxTokensPerRequest coins a request, each coin once', async () => {
    const at = nowS() - 60;
    const tokens = [
      token(8453, USDC_BASE),
      token(1, USDC_ETHEREUM),
      token(10, OP_OPTIMISM),
      token(8453, DEGEN_BASE),
      token(42161, ARB_ARBITRUM),
      token(1, NATIVE_TOKEN_ADDRESS),
      token(42161, NATIVE_TOKEN_ADDRESS), // the same coin as above
      token(8453, USDC_BASE), // asked twice
    ];
    for (const [coin, price] of [
      [`base:${USDC_BASE}`, 1],
      [`ethereum:${USDC_ETHEREUM}`, 1],
      [`optimism:${OP_OPTIMISM}`, 0.71],
      [`base:${DEGEN_BASE}`, 0.0021],
      [`arbitrum:${ARB_ARBITRUM}`, 0.33],
      ['coingecko:ethereum', 3456.78],
    ] as const) {
      standIn.setPrice(coin, { at, price });
    }

    const quotes = await source({ maxTokensPerRequest: 2 }).current(tokens);

    expect(standIn.requests.map((request) => request.coins.length)).toEqual([2, 2, 2]);
    const asked = standIn.requests.flatMap((request) => request.coins);
    expect(new Set(asked).size).toBe(6);
    expect(asked).toHaveLength(6);
    expect(quotes).toHaveLength(7);
    expect(new Set(quotes.map((quote) => `${quote.chainId}:${quote.address}`)).size).toBe(7);
  });

  it('fails the whole call when one request fails, after asking the ones before it', async () => {
    const at = nowS();
    standIn.setPrice(`base:${USDC_BASE}`, { at, price: 1 });
    standIn.setPrice(`ethereum:${USDC_ETHEREUM}`, { at, price: 1 });
    standIn.setPrice(`optimism:${OP_OPTIMISM}`, { at, price: 0.7 });
    standIn.setFault({ kind: 'status', status: 503 }, { skip: 1 });

    const error = await fault(
      source({ maxTokensPerRequest: 1 }).current([token(8453, USDC_BASE), token(1, USDC_ETHEREUM), token(10, OP_OPTIMISM)]),
    );
    expect(error.kind).toBe('unavailable');
    // No retry inside the source: the third request is never made.
    expect(standIn.requests).toHaveLength(2);
  });
});

describe('tokens not quoted', () => {
  it('leaves out a chain DefiLlama does not know, without asking for it, and says so at debug level', async () => {
    standIn.setPrice(`base:${USDC_BASE}`, { at: nowS(), price: 1 });
    const quotes = await source().current([
      token(84532, USDC_BASE),
      token(11155111, NATIVE_TOKEN_ADDRESS),
      token(8453, USDC_BASE),
      token(31337, USDC_BASE),
    ]);
    expect(quotes.map((quote) => quote.chainId)).toEqual([8453]);
    expect(standIn.requests.flatMap((request) => request.coins)).toEqual([`base:${USDC_BASE}`]);
    const line = logs.find((entry) => /chain not known/.test(entry.msg));
    expect(line).toMatchObject({ level: 20, chainIds: [84532, 11155111, 31337] });
  });

  it('makes no request when no token is on a known chain', async () => {
    expect(await source().current([token(84532, USDC_BASE)])).toEqual([]);
    expect(standIn.requests).toHaveLength(0);
  });

  it('leaves out a token missing from the answer and quotes the rest', async () => {
    standIn.setPrice(`base:${USDC_BASE}`, { at: nowS(), price: 1 });
    const quotes = await source().current([token(8453, USDC_BASE), token(8453, DEGEN_BASE)]);
    expect(quotes.map((quote) => quote.address)).toEqual([USDC_BASE]);
    expect(logs.find((entry) => /no price/.test(entry.msg))).toMatchObject({ level: 20, coins: [`base:${DEGEN_BASE}`] });
  });

  it('leaves out an address that is not one', async () => {
    expect(await source().current([token(8453, 'USDC'), token(8453, '0x1234')])).toEqual([]);
    expect(standIn.requests).toHaveLength(0);
  });
});

describe('values refused', () => {
  const cases: Array<[string, Partial<StandInPoint>]> = [
    ['a negative price', { price: -1.5 }],
    ['a zero price', { price: 0 }],
    ['a NaN price (null in JSON)', { price: null }],
    ['a price too large for a double (1e400 reads as Infinity)', { price: new RawJson('1e400') }],
    ['a price as a string', { price: '1.23' }],
    ['a price as an object', { price: { usd: 1 } }],
    ['no price', { price: undefined }],
    ['no timestamp', { timestamp: undefined }],
    ['a timestamp as a string', { timestamp: '1700000000' }],
    ['a timestamp of 0', { timestamp: 0 }],
    ['a negative timestamp', { timestamp: -1_700_000_000 }],
    ['a timestamp in milliseconds', { timestamp: Date.now() }],
    ['a timestamp a day ahead', { timestamp: nowS() + 86_400 }],
    ['a NaN timestamp (null in JSON)', { timestamp: null }],
  ];

  it.each(cases)('refuses %s, logs it, tells the caller, and quotes the other tokens of the answer', async (_name, bad) => {
    const at = nowS() - 30;
    standIn.setPrice(`base:${USDC_BASE}`, { at, price: 1, ...bad });
    standIn.setPrice(`base:${DEGEN_BASE}`, { at, price: 0.0021 });

    const refused: RefusedPrice[] = [];
    const quotes = await source().current([token(8453, USDC_BASE), token(8453, DEGEN_BASE)], undefined, (entry) => refused.push(entry));

    expect(quotes.map((quote) => quote.address)).toEqual([DEGEN_BASE]);
    expect(logs.find((entry) => entry.msg === 'price refused')).toMatchObject({ level: 40, coin: `base:${USDC_BASE}` });
    expect(refused).toEqual([{ token: token(8453, USDC_BASE), reason: logs.find((entry) => entry.msg === 'price refused')!.reason }]);
  });

  it('refuses an entry that is not an object', async () => {
    standIn.setFault({
      kind: 'garbage',
      body: JSON.stringify({ coins: { [`base:${USDC_BASE}`]: 1.0, [`base:${DEGEN_BASE}`]: null } }),
    });
    expect(await source().current([token(8453, USDC_BASE), token(8453, DEGEN_BASE)])).toEqual([]);
    expect(logs.filter((entry) => entry.msg === 'price refused')).toHaveLength(2);
  });

  it('refuses a price below minConfidence, keeps one without a confidence, and keeps all without the option', async () => {
    const at = nowS();
    standIn.setPrice(`base:${USDC_BASE}`, { at, price: 1, confidence: 0.99 });
    standIn.setPrice(`base:${DEGEN_BASE}`, { at, price: 0.0021, confidence: 0.4 });
    standIn.setPrice('coingecko:ethereum', { at, price: 3456.78, confidence: undefined });
    const tokens = [token(8453, USDC_BASE), token(8453, DEGEN_BASE), token(8453, NATIVE_TOKEN_ADDRESS)];

    const strict = await source({ minConfidence: 0.8 }).current(tokens);
    expect(strict.map((quote) => quote.address).sort()).toEqual([NATIVE_TOKEN_ADDRESS, USDC_BASE].sort());
    expect(logs.find((entry) => entry.msg === 'price refused')).toMatchObject({ coin: `base:${DEGEN_BASE}` });

    expect(await source().current(tokens)).toHaveLength(3);
  });

  it('ignores coins in the answer that were not asked for', async () => {
    standIn.setFault({
      kind: 'garbage',
      body: JSON.stringify({ coins: { [`base:${DEGEN_BASE}`]: { price: 5, symbol: 'X', timestamp: nowS() } } }),
    });
    expect(await source().current([token(8453, USDC_BASE)])).toEqual([]);
  });

  it('matches an answer key without regard to case', async () => {
    const checksummed = 'base:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    standIn.setFault({
      kind: 'garbage',
      body: JSON.stringify({ coins: { [checksummed]: { price: 1, symbol: 'USDC', timestamp: nowS() } } }),
    });
    expect((await source().current([token(8453, USDC_BASE)])).map((quote) => quote.address)).toEqual([USDC_BASE]);
  });
});

describe('prices as decimal strings', () => {
  it('writes out an exponent the answer uses', async () => {
    const at = nowS();
    standIn.setPrice(`base:${USDC_BASE}`, { at, price: new RawJson('1e-7') });
    standIn.setPrice(`base:${DEGEN_BASE}`, { at, price: new RawJson('2.5E+21') });
    standIn.setPrice(`ethereum:${USDC_ETHEREUM}`, { at, price: new RawJson('0.022053735051098835') });
    const quotes = await source().current([token(8453, USDC_BASE), token(8453, DEGEN_BASE), token(1, USDC_ETHEREUM)]);
    expect(Object.fromEntries(quotes.map((quote) => [quote.address, quote.priceUsd]))).toEqual({
      [USDC_BASE]: '0.0000001',
      [DEGEN_BASE]: '2500000000000000000000',
      [USDC_ETHEREUM]: '0.022053735051098835',
    });
  });

  it('says the same number as the double, without an exponent', () => {
    expect(decimalString(1.23)).toBe('1.23');
    expect(decimalString(1e-7)).toBe('0.0000001');
    expect(decimalString(1.2345e-7)).toBe('0.00000012345');
    expect(decimalString(1.5e21)).toBe('1500000000000000000000');
    expect(decimalString(1.2345e22)).toBe('12345000000000000000000');
    expect(decimalString(123456789012345680000)).toBe('123456789012345680000');
    fc.assert(
      fc.property(fc.double({ min: Number.MIN_VALUE, noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = decimalString(value);
        expect(text).toMatch(/^\d+(\.\d+)?$/);
        expect(Number(text)).toBe(value);
      }),
    );
  });
});

describe('faults', () => {
  it('is unavailable when the source is down (connection refused)', async () => {
    await standIn.close();
    const error = await fault(source().current([token(8453, USDC_BASE)]));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('is unavailable when the connection is closed without an answer', async () => {
    standIn.setFault({ kind: 'reset' });
    expect((await fault(source().current([token(8453, USDC_BASE)]))).kind).toBe('unavailable');
  });

  it.each([500, 502, 503])('is unavailable on %i, with Retry-After when given', async (status) => {
    standIn.setFault({ kind: 'status', status, retryAfter: '30' });
    const error = await fault(source().current([token(8453, USDC_BASE)]));
    expect(error).toMatchObject({ kind: 'unavailable', status, retryAfterMs: 30_000 });
  });

  it('is unavailable when no answer comes within timeoutMs', async () => {
    standIn.setPrice(`base:${USDC_BASE}`, { at: nowS(), price: 1 });
    standIn.setFault({ kind: 'slow', delayMs: 10_000 });
    const error = await fault(source({ timeoutMs: 200 }).current([token(8453, USDC_BASE)]));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/no answer within 200 ms/);
  });

  it('is unavailable when the body stops coming within timeoutMs', async () => {
    standIn.setPrice(`base:${USDC_BASE}`, { at: nowS(), price: 1 });
    standIn.setFault({ kind: 'slow-body', delayMs: 10_000 });
    const error = await fault(source({ timeoutMs: 300 }).current([token(8453, USDC_BASE)]));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/no answer within 300 ms/);
  });

  it('answers once the slow source is fast again: nothing is left behind', async () => {
    standIn.setPrice(`base:${USDC_BASE}`, { at: nowS(), price: 1 });
    standIn.setFault({ kind: 'slow', delayMs: 10_000 }, { times: 1 });
    await fault(source({ timeoutMs: 200 }).current([token(8453, USDC_BASE)]));
    expect(await source({ timeoutMs: 2_000 }).current([token(8453, USDC_BASE)])).toHaveLength(1);
  });

  it('is rate limited on 429, with Retry-After in seconds as ms', async () => {
    standIn.setFault({ kind: 'status', status: 429, retryAfter: '7' });
    const error = await fault(source().current([token(8453, USDC_BASE)]));
    expect(error).toMatchObject({ kind: 'rate-limited', status: 429, retryAfterMs: 7_000 });
  });

  it('is rate limited on 429, with Retry-After as an HTTP date as ms from now', async () => {
    standIn.setFault({ kind: 'status', status: 429, retryAfter: new Date(Date.now() + 60_000).toUTCString() });
    const error = await fault(source().current([token(8453, USDC_BASE)]));
    expect(error.kind).toBe('rate-limited');
    // The date has whole seconds.
    expect(error.retryAfterMs).toBeGreaterThan(58_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('is rate limited on 429 without Retry-After, leaving the delay to the caller', async () => {
    standIn.setFault({ kind: 'status', status: 429 });
    const error = await fault(source().current([token(8453, USDC_BASE)]));
    expect(error).toMatchObject({ kind: 'rate-limited', retryAfterMs: undefined });
  });

  it.each([400, 403, 404])('is a bad answer on %i', async (status) => {
    standIn.setFault({ kind: 'status', status });
    expect(await fault(source().current([token(8453, USDC_BASE)]))).toMatchObject({ kind: 'bad-answer', status });
  });

  it.each([
    ['an HTML page', '<html><body>Just a moment...</body></html>'],
    ['truncated JSON', '{"coins": {"base:0x83'],
    ['JSON with a bare NaN', `{"coins": {"base:${USDC_BASE}": {"price": NaN, "timestamp": 1700000000}}}`],
    ['an empty body', ''],
    ['null', 'null'],
    ['an array', '[]'],
    ['no coins', '{"prices": {}}'],
    ['coins as an array', '{"coins": []}'],
    ['coins as null', '{"coins": null}'],
  ])('is a bad answer on %s', async (_name, body) => {
    standIn.setFault({ kind: 'garbage', body });
    const error = await fault(source().current([token(8453, USDC_BASE)]));
    expect(error.kind).toBe('bad-answer');
  });

  it('is a bad answer when the body is larger than any price list', async () => {
    standIn.setFault({ kind: 'garbage', body: `{"coins": {}, "padding": "${'x'.repeat(5 * 1024 * 1024)}"}` });
    const error = await fault(source().current([token(8453, USDC_BASE)]));
    expect(error.kind).toBe('bad-answer');
    expect(error.message).toMatch(/larger than/);
  });

  it("passes the caller's abort through as is, not as a fault of the source", async () => {
    standIn.setFault({ kind: 'slow', delayMs: 10_000 });
    const stop = new AbortController();
    const call = source().current([token(8453, USDC_BASE)], stop.signal);
    setTimeout(() => stop.abort(new Error('shutting down')), 50);
    await expect(call).rejects.toThrow('shutting down');
    await expect(call).rejects.not.toBeInstanceOf(PriceSourceError);
  });

  it('asks nothing once the caller has aborted', async () => {
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(source().historical([token(8453, USDC_BASE)], new Date(), stop.signal)).rejects.toThrow('stopped');
    expect(standIn.requests).toHaveLength(0);
  });
});

describe('configuration', () => {
  it('knows a DefiLlama chain for every mainnet the indexer follows by default', () => {
    const testnets = new Set([84532, 11155111]);
    for (const core of DEFAULT_CORES) {
      if (!testnets.has(core.chainId)) expect(DEFILLAMA_CHAINS[core.chainId], `chain ${core.chainId}`).toBeDefined();
    }
  });

  it('refuses options that cannot work', () => {
    expect(() => source({ baseUrl: 'coins.llama.fi' })).toThrow(/baseUrl/);
    expect(() => source({ maxTokensPerRequest: 0 })).toThrow(/maxTokensPerRequest/);
    expect(() => source({ maxTokensPerRequest: 1.5 })).toThrow(/maxTokensPerRequest/);
    expect(() => source({ timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('ignores a trailing slash on baseUrl', async () => {
    standIn.setPrice(`base:${USDC_BASE}`, { at: nowS(), price: 1 });
    expect(await source({ baseUrl: `${standIn.url}/` }).current([token(8453, USDC_BASE)])).toHaveLength(1);
    expect(standIn.requests[0]!.path).toBe(`/prices/current/base:${USDC_BASE}`);
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});

function sorted<T extends { chainId: number; address: string }>(quotes: T[]): T[] {
  return [...quotes].sort((a, b) => a.chainId - b.chainId || a.address.localeCompare(b.address));
}
