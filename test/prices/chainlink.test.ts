import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pino } from 'pino';
import { type Address, createPublicClient, custom, http, type PublicClient } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ChainlinkFeed, parseChainlinkFeeds } from '../../src/chain/chainlink-feeds.js';
import { createChainlinkSource, decimalText } from '../../src/prices/chainlink.js';
import { NATIVE_TOKEN_ADDRESS, PriceSourceError, type RefusedPrice, type TokenRef } from '../../src/prices/source.js';
import { anvilBinary, deploy, freePort, type LocalChain, send, startAnvil } from '../../scripts/chain/local-chain.js';
import { setStub, uintWord } from '../chain/code-stub.js';

/**
 * The Chainlink source against Chainlink's own MockV3Aggregator (compiled from the source the
 * @chainlink/contracts package ships: scripts/compile-contracts.ts) on anvil: rounds set at chosen
 * times with updateRoundData, read back through latestRoundData and getRoundData.
 */
const TOKEN = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const OTHER = '0x4200000000000000000000000000000000000042';
const THIRD = '0x4200000000000000000000000000000000000006';
/** A chain id no test chain has: its client is whatever a test says. */
const FAR_CHAIN = 424242;
const PHASE = (phase: bigint, round: bigint) => (phase << 64n) | round;

/** What a thrown promise threw; undefined when it resolved. */
const thrown = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );

describe.skipIf(anvilBinary() === null)('Chainlink price feeds', () => {
  let chain: LocalChain;
  let feed8: Address;
  let feed18: Address;
  let logs: Array<{ msg: string } & Record<string, unknown>>;
  /** The times of feed8's rounds 1..5: a hundred seconds apart, an hour ago. */
  let times: number[];
  const nowS = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    chain = await startAnvil();
    feed8 = await deploy(chain, 'MockV3Aggregator', [8, 300_012_345_678n]);
    feed18 = await deploy(chain, 'MockV3Aggregator', [18, 3000_123456789012345678n]);
    const start = nowS() - 3600;
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

  const source = (feeds: ChainlinkFeed[], options: { clientFor?: (chainId: number) => PublicClient | undefined; maxAgeSeconds?: number } = {}) =>
    createChainlinkSource({
      feeds,
      clientFor: options.clientFor ?? (() => chain.public),
      logger: pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as never) }),
      maxAgeSeconds: options.maxAgeSeconds,
    });
  const feed = (address: Address, token = TOKEN, chainId = chain.chainId): ChainlinkFeed => ({ chainId, token, feed: address.toLowerCase() });
  const ref = (token = TOKEN, chainId = chain.chainId): TokenRef => ({ chainId, address: token });
  const price = (round: number) => `${3000.12345678 + (round - 1)}`;
  const logged = (msg: string) => logs.filter((line) => line.msg === msg);
  /** A client of the test chain that counts the eth_calls made through it. */
  const countingClient = () => {
    const counter = { calls: 0 };
    const client = createPublicClient({
      transport: custom({
        request: (args: { method: string; params?: unknown }) => {
          if (args.method === 'eth_call') counter.calls += 1;
          return chain.public.request(args as never);
        },
      }),
    }) as PublicClient;
    return { client, counter };
  };

  it('quotes the latest round: its answer over 10^decimals, exactly, at its update time', async () => {
    expect(await source([feed(feed8)]).current([ref()])).toEqual([
      { chainId: chain.chainId, address: TOKEN, priceUsd: '3004.12345678', at: new Date(times[4]! * 1000), source: 'chainlink' },
    ]);
  });

  it('writes an 18-decimal answer out exactly, at the time of its round', async () => {
    const [eighteen] = await source([feed(feed18, NATIVE_TOKEN_ADDRESS)]).current([ref(NATIVE_TOKEN_ADDRESS)]);
    expect(eighteen).toMatchObject({ address: NATIVE_TOKEN_ADDRESS, priceUsd: '3000.123456789012345678' });
    // The constructor's round is updated at the deploying block's time.
    expect(Math.abs(eighteen!.at.getTime() / 1000 - nowS())).toBeLessThan(600);
  });

  it('refuses a price below what the history keeps rather than quoting 0', async () => {
    const tiny = await deploy(chain, 'MockV3Aggregator', [30, 5n]);
    expect(await source([feed(tiny)]).current([ref()])).toEqual([]);
    expect(logged('price refused')).toMatchObject([{ answer: '5', reason: expect.stringContaining('below 10^-18') as unknown }]);
  });

  it('quotes a past time with the newest round updated at or before it, never a later one', async () => {
    const historical = async (at: number) => (await source([feed(feed8)]).historical([ref()], new Date(at * 1000)))[0];
    expect(await historical(times[2]! + 50)).toMatchObject({ priceUsd: price(3), at: new Date(times[2]! * 1000) });
    expect(await historical(times[2]!)).toMatchObject({ priceUsd: price(3), at: new Date(times[2]! * 1000) });
    expect(await historical(times[2]! - 1)).toMatchObject({ priceUsd: price(2), at: new Date(times[1]! * 1000) });
    expect(await historical(times[0]!)).toMatchObject({ priceUsd: price(1), at: new Date(times[0]! * 1000) });
    expect(await historical(times[3]! + 99)).toMatchObject({ priceUsd: price(4), at: new Date(times[3]! * 1000) });
    expect(await historical(times[4]! + 10_000)).toMatchObject({ priceUsd: price(5) });
    // Before the first round: no price.
    expect(await historical(times[0]! - 1)).toBeUndefined();
  });

  it('finds a past round with a binary search: a call per halving, not one per round', async () => {
    const many = await deploy(chain, 'MockV3Aggregator', [8, 1n]);
    const start = nowS() - 10_000;
    for (let round = 1; round <= 64; round += 1) {
      await send(chain, many, 'MockV3Aggregator', 'updateRoundData', [BigInt(round), BigInt(round) * 100_000_000n, BigInt(start + round * 10), BigInt(start + round * 10)]);
    }
    for (const [at, expected] of [
      [start + 175, '17'],
      [start + 20, '2'],
      [start + 635, '63'],
    ] as const) {
      const { client, counter } = countingClient();
      const quotes = await source([feed(many)], { clientFor: () => client }).historical([ref()], new Date(at * 1000));
      expect(quotes).toMatchObject([{ priceUsd: expected }]);
      // decimals, latestRoundData, and at most log2(64) getRoundData.
      expect(counter.calls).toBeLessThanOrEqual(2 + 6);
    }
  });

  it('searches earlier phases of a proxy-style round id when the latest phase starts after the time', async () => {
    const phased = await deploy(chain, 'MockV3Aggregator', [8, 1n]);
    const start = nowS() - 20_000;
    // Phase 1: rounds 1..3 at start+100, +200, +300; phase 2: rounds 1..4 at start+1000.. +1300.
    const rounds: Array<[bigint, number]> = [
      ...[1n, 2n, 3n].map((round): [bigint, number] => [PHASE(1n, round), start + Number(round) * 100]),
      ...[1n, 2n, 3n, 4n].map((round): [bigint, number] => [PHASE(2n, round), start + 900 + Number(round) * 100]),
    ];
    for (const [id, at] of rounds) {
      // The answer says which round it is: phase * 10 + round dollars.
      const dollars = (id >> 64n) * 10n + (id & 0xffffn);
      await send(chain, phased, 'MockV3Aggregator', 'updateRoundData', [id, dollars * 100_000_000n, BigInt(at), BigInt(at)]);
    }
    const historical = async (at: number) => (await source([feed(phased)]).historical([ref()], new Date(at * 1000)))[0]?.priceUsd;
    expect(await historical(start + 1250)).toBe('23');
    expect(await historical(start + 1199)).toBe('22');
    expect(await historical(start + 1000)).toBe('21');
    // Between the phases: phase 1's last round.
    expect(await historical(start + 999)).toBe('13');
    expect(await historical(start + 250)).toBe('12');
    expect(await historical(start + 100)).toBe('11');
    expect(await historical(start + 99)).toBeUndefined();
    expect((await source([feed(phased)]).current([ref()]))[0]?.priceUsd).toBe('24');
  });

  it('leaves out a token without a feed, and a feed address without a contract, while the others answer', async () => {
    const quotes = await source([feed(feed8), feed('0x000000000000000000000000000000000000dead', OTHER)]).current([ref(), ref(OTHER), ref(NATIVE_TOKEN_ADDRESS)]);
    expect(quotes.map((quote) => quote.address)).toEqual([TOKEN]);
    expect(logged('not a price feed: token not quoted')).toMatchObject([{ feed: '0x000000000000000000000000000000000000dead' }]);
  });

  it('leaves out a contract whose answer does not decode as a round, while the others answer', async () => {
    const garbage: Address = '0x00000000000000000000000000000000000bad01';
    await setStub(chain, garbage, { 'decimals()': uintWord(8), 'latestRoundData()': uintWord(1) });
    const quotes = await source([feed(feed8), feed(garbage, OTHER)]).current([ref(), ref(OTHER)]);
    expect(quotes.map((quote) => quote.address)).toEqual([TOKEN]);
    expect(logged('not a price feed: token not quoted')).toMatchObject([{ feed: garbage }]);
  });

  it('refuses and logs an answer that is not above zero', async () => {
    const broken = await deploy(chain, 'MockV3Aggregator', [8, 1n]);
    await send(chain, broken, 'MockV3Aggregator', 'updateAnswer', [-5n]);
    expect(await source([feed(broken)]).current([ref()])).toEqual([]);
    await send(chain, broken, 'MockV3Aggregator', 'updateAnswer', [0n]);
    const refused: RefusedPrice[] = [];
    expect(await source([feed(broken)]).current([ref()], undefined, (entry) => refused.push(entry))).toEqual([]);
    expect(refused).toEqual([{ token: ref(), reason: 'the answer is not > 0' }]);
    expect(logged('price refused')).toMatchObject([
      { reason: 'the answer is not > 0', answer: '-5' },
      { reason: 'the answer is not > 0', answer: '0' },
    ]);
  });

  it('refuses a latest round that is not complete, and prices a past time with the round before it', async () => {
    const pending = await deploy(chain, 'MockV3Aggregator', [8, 1n]);
    const at = nowS() - 600;
    await send(chain, pending, 'MockV3Aggregator', 'updateRoundData', [1n, 700_000_000n, BigInt(at), BigInt(at)]);
    await send(chain, pending, 'MockV3Aggregator', 'updateRoundData', [2n, 800_000_000n, 0n, BigInt(at + 10)]);
    expect(await source([feed(pending)]).current([ref()])).toEqual([]);
    expect(logged('price refused')).toMatchObject([{ reason: 'the latest round is not complete' }]);
    expect(await source([feed(pending)]).historical([ref()], new Date())).toMatchObject([{ priceUsd: '7', at: new Date(at * 1000) }]);
  });

  it('refuses a round updated more than an hour ahead of the clock', async () => {
    const ahead = await deploy(chain, 'MockV3Aggregator', [8, 1n]);
    const set = (seconds: number) => send(chain, ahead, 'MockV3Aggregator', 'updateRoundData', [1n, 100_000_000n, BigInt(nowS() + seconds), BigInt(nowS())]);
    await set(7200);
    expect(await source([feed(ahead)]).current([ref()])).toEqual([]);
    expect(logged('price refused')).toMatchObject([{ reason: 'updated in the future' }]);
    await set(1800);
    expect(await source([feed(ahead)]).current([ref()])).toMatchObject([{ priceUsd: '1' }]);
  });

  it('refuses a current price older than maxAgeSeconds', async () => {
    expect(await source([feed(feed8)], { maxAgeSeconds: 60 }).current([ref()])).toEqual([]);
    expect(logged('price refused')).toMatchObject([{ reason: expect.stringContaining('maxAgeSeconds') as unknown }]);
    expect(await source([feed(feed8)], { maxAgeSeconds: 7200 }).current([ref()])).toHaveLength(1);
  });

  it('throws an unavailable PriceSourceError when the RPC endpoint does not answer', async () => {
    const closed = createPublicClient({ transport: http(`http://127.0.0.1:${await freePort()}`, { retryCount: 0, timeout: 2000 }) }) as PublicClient;
    const error = await thrown(source([feed(feed8)], { clientFor: () => closed }).current([ref()]));
    expect(error).toBeInstanceOf(PriceSourceError);
    expect(error).toMatchObject({ kind: 'unavailable', source: 'chainlink' });
    expect(await thrown(source([feed(feed8)], { clientFor: () => closed }).historical([ref()], new Date()))).toMatchObject({ kind: 'unavailable' });
  });

  it('throws unavailable when the endpoint takes longer than the client waits', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer(() => undefined).on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const slow = createPublicClient({ transport: http(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, { retryCount: 0, timeout: 300 }) }) as PublicClient;
      expect(await thrown(source([feed(feed8)], { clientFor: () => slow }).current([ref()]))).toMatchObject({ name: 'PriceSourceError', kind: 'unavailable' });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("quotes the chains that answer when another chain's endpoint is down, and says which feed was not read", async () => {
    const closed = createPublicClient({ transport: http(`http://127.0.0.1:${await freePort()}`, { retryCount: 0, timeout: 2000 }) }) as PublicClient;
    const clientFor = (chainId: number) => (chainId === FAR_CHAIN ? closed : chain.public);
    const quotes = await source([feed(feed8), feed(feed18, THIRD, FAR_CHAIN)], { clientFor }).current([ref(), ref(THIRD, FAR_CHAIN)]);
    expect(quotes).toMatchObject([{ chainId: chain.chainId, address: TOKEN, priceUsd: '3004.12345678' }]);
    const warned = logged('feed not read, its chain did not answer: token not quoted');
    expect(warned).toHaveLength(1);
    expect(warned[0]!.err).toContain(`on chain ${FAR_CHAIN}`);
  });

  it('leaves out the tokens of a chain without an RPC endpoint, saying so once', async () => {
    const withoutClient = source([feed(feed8)], { clientFor: () => undefined });
    expect(await withoutClient.current([ref()])).toEqual([]);
    expect(await withoutClient.historical([ref()], new Date())).toEqual([]);
    expect(logged('no RPC endpoint for the chain: its feeds are not read')).toMatchObject([{ chainId: chain.chainId }]);
  });

  it('reads nothing once the signal is aborted', async () => {
    const { client, counter } = countingClient();
    const controller = new AbortController();
    controller.abort(new Error('stopping'));
    expect(await thrown(source([feed(feed8)], { clientFor: () => client }).current([ref()], controller.signal))).toMatchObject({ message: 'stopping' });
    expect(counter.calls).toBe(0);
  });
});

describe('PRICE_CHAINLINK_FEEDS', () => {
  it('reads chainId:token=feed entries, lowercased, whitespace around them and their separators tolerated', () => {
    expect(
      parseChainlinkFeeds(` 8453:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913=0x7e860098F58bBFC8648a4311b374B1D669a2bc6B ,
      8453 : 0x0000000000000000000000000000000000000000 = 0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70,`),
    ).toEqual({
      feeds: [
        { chainId: 8453, token: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', feed: '0x7e860098f58bbfc8648a4311b374b1d669a2bc6b' },
        { chainId: 8453, token: NATIVE_TOKEN_ADDRESS, feed: '0x71041dddad3595f9ced3dccfbe3d1f4b0a16bb70' },
      ],
      problems: [],
    });
    expect(parseChainlinkFeeds('')).toEqual({ feeds: [], problems: [] });
    expect(parseChainlinkFeeds(' , ')).toEqual({ feeds: [], problems: [] });
  });

  it('maps one feed to two tokens, and one token on two chains', () => {
    const { feeds, problems } = parseChainlinkFeeds(`8453:${TOKEN}=${OTHER},8453:${THIRD}=${OTHER},1:${TOKEN}=${THIRD}`);
    expect(problems).toEqual([]);
    expect(feeds).toHaveLength(3);
  });

  it('names each bad entry, and a token mapped twice', () => {
    const { problems } = parseChainlinkFeeds(
      `8453:0x12=0x34,base:${TOKEN}=${TOKEN},0:${TOKEN}=${OTHER},8453:${TOKEN}=${OTHER},8453:${TOKEN.toUpperCase().replace('0X', '0x')}=${THIRD},8453:${TOKEN}`,
    );
    expect(problems).toEqual([
      'PRICE_CHAINLINK_FEEDS: "8453:0x12=0x34" is not chainId:0xToken=0xFeed',
      `PRICE_CHAINLINK_FEEDS: "base:${TOKEN}=${TOKEN}" is not chainId:0xToken=0xFeed`,
      `PRICE_CHAINLINK_FEEDS: "0:${TOKEN}=${OTHER}" has chain id 0, not a positive integer`,
      `PRICE_CHAINLINK_FEEDS: token ${TOKEN} of chain 8453 is mapped twice`,
      `PRICE_CHAINLINK_FEEDS: "8453:${TOKEN}" is not chainId:0xToken=0xFeed`,
    ]);
  });
});

describe('decimalText', () => {
  it('writes the answer over 10^decimals without an exponent or trailing zeros, to 18 decimals', () => {
    expect(decimalText(300_012_345_678n, 8)).toBe('3000.12345678');
    expect(decimalText(3000_123456789012345678n, 18)).toBe('3000.123456789012345678');
    expect(decimalText(100_000_000n, 8)).toBe('1');
    expect(decimalText(5n, 8)).toBe('0.00000005');
    expect(decimalText(10n ** 30n + 1n, 30)).toBe('1');
    expect(decimalText(123n, 0)).toBe('123');
    // Beyond what a float keeps exactly.
    expect(decimalText(123_456_789_012_345_678_901_234_567n, 18)).toBe('123456789.012345678901234567');
  });
});
