import { pino } from 'pino';
import { type Address, createPublicClient, http, type PublicClient } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ChainlinkFeed, createChainlinkSource, decimalText, parseChainlinkFeeds } from '../../src/prices/chainlink.js';
import { NATIVE_TOKEN_ADDRESS, PriceSourceError, type TokenRef } from '../../src/prices/source.js';
import { anvilBinary, deploy, freePort, type LocalChain, send, startAnvil } from '../../scripts/chain/local-chain.js';

/**
 * The Chainlink source against Chainlink's own MockV3Aggregator (compiled from the source the
 * @chainlink/contracts package ships: scripts/compile-contracts.ts) on anvil: rounds set at chosen
 * times with updateRoundData, read back through latestRoundData and getRoundData.
 */
const TOKEN = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const OTHER = '0x4200000000000000000000000000000000000042';

describe.skipIf(anvilBinary() === null)('Chainlink price feeds', () => {
  let chain: LocalChain;
  let feed8: Address;
  let feed18: Address;
  let logs: Array<{ msg: string } & Record<string, unknown>>;
  /** The times of feed8's rounds 1..5: a hundred seconds apart, an hour ago. */
  let times: number[];

  beforeAll(async () => {
    chain = await startAnvil();
    feed8 = await deploy(chain, 'MockV3Aggregator', [8, 300_012_345_678n]);
    feed18 = await deploy(chain, 'MockV3Aggregator', [18, 2n * 10n ** 18n]);
    const start = Math.floor(Date.now() / 1000) - 3600;
    times = [0, 100, 200, 300, 400].map((offset) => start + offset);
    for (const [index, at] of times.entries()) {
      await send(chain, feed8, 'MockV3Aggregator', 'updateRoundData', [BigInt(index + 1), 300_012_345_678n + BigInt(index) * 100_000_000n, BigInt(at), BigInt(at)]);
    }
  });
  afterAll(async () => {
    await chain?.stop();
  });
  beforeEach(() => {
    logs = [];
  });

  const source = (feeds: ChainlinkFeed[], options: { clientFor?: () => PublicClient | undefined; maxAgeSeconds?: number } = {}) =>
    createChainlinkSource({
      feeds,
      clientFor: options.clientFor ?? (() => chain.public),
      logger: pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as never) }),
      maxAgeSeconds: options.maxAgeSeconds,
    });
  const feed = (address: Address, token = TOKEN): ChainlinkFeed => ({ chainId: chain.chainId, token, feed: address.toLowerCase() });
  const ref = (token = TOKEN): TokenRef => ({ chainId: chain.chainId, address: token });
  const price = (round: number) => `${3000.12345678 + (round - 1)}`;

  it('quotes the latest round: its answer over 10^decimals, exactly, at its update time', async () => {
    expect(await source([feed(feed8)]).current([ref()])).toEqual([
      { chainId: chain.chainId, address: TOKEN, priceUsd: '3004.12345678', at: new Date(times[4]! * 1000), source: 'chainlink' },
    ]);
    const [eighteen] = await source([feed(feed18, NATIVE_TOKEN_ADDRESS)]).current([ref(NATIVE_TOKEN_ADDRESS)]);
    expect(eighteen?.priceUsd).toBe('2');
  });

  it('quotes a past time with the newest round updated at or before it, never a later one', async () => {
    const historical = async (at: number) => (await source([feed(feed8)]).historical([ref()], new Date(at * 1000)))[0];
    expect(await historical(times[2]! + 50)).toMatchObject({ priceUsd: price(3), at: new Date(times[2]! * 1000) });
    expect(await historical(times[2]!)).toMatchObject({ priceUsd: price(3), at: new Date(times[2]! * 1000) });
    expect(await historical(times[2]! - 1)).toMatchObject({ priceUsd: price(2), at: new Date(times[1]! * 1000) });
    expect(await historical(times[0]!)).toMatchObject({ priceUsd: price(1) });
    expect(await historical(times[4]! + 10_000)).toMatchObject({ priceUsd: price(5) });
    // Before the first round: no price.
    expect(await historical(times[0]! - 1)).toBeUndefined();
  });

  it('leaves out a token without a feed, and a feed address without a contract, while the others answer', async () => {
    const quotes = await source([feed(feed8), feed('0x000000000000000000000000000000000000dead', OTHER)]).current([ref(), ref(OTHER), ref(NATIVE_TOKEN_ADDRESS)]);
    expect(quotes.map((quote) => quote.address)).toEqual([TOKEN]);
    expect(logs.some((line) => line.msg.includes('not a price feed'))).toBe(true);
  });

  it('refuses and logs an answer that is not above zero', async () => {
    const broken = await deploy(chain, 'MockV3Aggregator', [8, 1n]);
    await send(chain, broken, 'MockV3Aggregator', 'updateAnswer', [-5n]);
    expect(await source([feed(broken)]).current([ref()])).toEqual([]);
    expect(logs.find((line) => line.msg === 'price refused')).toMatchObject({ reason: 'the answer is not > 0', answer: '-5' });
    await send(chain, broken, 'MockV3Aggregator', 'updateAnswer', [0n]);
    expect(await source([feed(broken)]).current([ref()])).toEqual([]);
  });

  it('refuses a current price older than maxAgeSeconds', async () => {
    expect(await source([feed(feed8)], { maxAgeSeconds: 60 }).current([ref()])).toEqual([]);
    expect(await source([feed(feed8)], { maxAgeSeconds: 7200 }).current([ref()])).toHaveLength(1);
  });

  it('throws an unavailable PriceSourceError when the RPC endpoint does not answer', async () => {
    const closed = createPublicClient({ transport: http(`http://127.0.0.1:${await freePort()}`, { retryCount: 0, timeout: 2000 }) }) as PublicClient;
    const error = await source([feed(feed8)], { clientFor: () => closed }).current([ref()]).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(PriceSourceError);
    expect(error).toMatchObject({ kind: 'unavailable', source: 'chainlink' });
  });

  it('leaves out the tokens of a chain without an RPC endpoint', async () => {
    expect(await source([feed(feed8)], { clientFor: () => undefined }).current([ref()])).toEqual([]);
  });
});

describe('PRICE_CHAINLINK_FEEDS', () => {
  it('reads chainId:token=feed entries, lowercased', () => {
    expect(parseChainlinkFeeds(` 8453:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913=0x7e860098F58bBFC8648a4311b374B1D669a2bc6B ,
      8453:0x0000000000000000000000000000000000000000=0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70`)).toEqual({
      feeds: [
        { chainId: 8453, token: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', feed: '0x7e860098f58bbfc8648a4311b374b1d669a2bc6b' },
        { chainId: 8453, token: NATIVE_TOKEN_ADDRESS, feed: '0x71041dddad3595f9ced3dccfbe3d1f4b0a16bb70' },
      ],
      problems: [],
    });
    expect(parseChainlinkFeeds('')).toEqual({ feeds: [], problems: [] });
  });

  it('names each bad entry, and a token mapped twice', () => {
    const { problems } = parseChainlinkFeeds(`8453:0x12=0x34,base:${TOKEN}=${TOKEN},8453:${TOKEN}=${OTHER},8453:${TOKEN}=${OTHER}`);
    expect(problems).toEqual([
      'PRICE_CHAINLINK_FEEDS: "8453:0x12=0x34" is not chainId:0xToken=0xFeed',
      `PRICE_CHAINLINK_FEEDS: "base:${TOKEN}=${TOKEN}" is not chainId:0xToken=0xFeed`,
      `PRICE_CHAINLINK_FEEDS: token ${TOKEN} of chain 8453 is mapped twice`,
    ]);
  });
});

describe('decimalText', () => {
  it('writes the answer over 10^decimals without an exponent or trailing zeros, to 18 decimals', () => {
    expect(decimalText(300_012_345_678n, 8)).toBe('3000.12345678');
    expect(decimalText(100_000_000n, 8)).toBe('1');
    expect(decimalText(5n, 8)).toBe('0.00000005');
    expect(decimalText(10n ** 30n + 1n, 30)).toBe('1');
    expect(decimalText(123n, 0)).toBe('123');
  });
});
