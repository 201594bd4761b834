/**
 * A price source over Chainlink price feeds, read on chain through the endpoints the indexer already
 * has: an operator maps a token to its USD feed (`PRICE_CHAINLINK_FEEDS`), and the source reads the
 * feed's AggregatorV3Interface (`latestRoundData` now, `getRoundData` for a past time). It costs RPC
 * calls only, and prices what a feed exists for, at the feed's own heartbeat and deviation.
 *
 * A round id is `phaseId << 64 | aggregatorRoundId` (a proxy's; an aggregator read directly, as
 * Chainlink's MockV3Aggregator, counts from 1 in phase 0): a past time is found by a binary search
 * over the rounds of the latest phase, then of earlier ones, for the newest round updated at or
 * before it. A round from after the time asked for is never a quote for it.
 */
import type { Logger } from 'pino';
import { type Address, parseAbi, type PublicClient } from 'viem';
import { isRevert } from '../chain/rpc.js';
import { type PriceQuote, type PriceSource, PriceSourceError, type TokenRef } from './source.js';

export const CHAINLINK_SOURCE_NAME = 'chainlink';

const AGGREGATOR_V3 = parseAbi([
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function getRoundData(uint80 roundId) view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

export interface ChainlinkFeed {
  chainId: number;
  /** Lowercase; the native token is 0x0000000000000000000000000000000000000000. */
  token: string;
  /** The feed (proxy or aggregator), lowercase. */
  feed: string;
}

const ENTRY = /^([0-9]{1,10}):(0x[0-9a-fA-F]{40})=(0x[0-9a-fA-F]{40})$/;

/** `chainId:token=feed,…` (PRICE_CHAINLINK_FEEDS). */
export function parseChainlinkFeeds(text: string): { feeds: ChainlinkFeed[]; problems: string[] } {
  const feeds: ChainlinkFeed[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const entry of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const match = ENTRY.exec(entry);
    if (!match) {
      problems.push(`PRICE_CHAINLINK_FEEDS: "${entry}" is not chainId:0xToken=0xFeed`);
      continue;
    }
    const feed = { chainId: Number(match[1]), token: match[2]!.toLowerCase(), feed: match[3]!.toLowerCase() };
    const key = `${feed.chainId}:${feed.token}`;
    if (seen.has(key)) problems.push(`PRICE_CHAINLINK_FEEDS: token ${feed.token} of chain ${feed.chainId} is mapped twice`);
    seen.add(key);
    feeds.push(feed);
  }
  return { feeds, problems };
}

export interface ChainlinkSourceOptions {
  feeds: readonly ChainlinkFeed[];
  /** The client of a chain; a chain without one is not quoted. */
  clientFor(chainId: number): PublicClient | undefined;
  logger: Pick<Logger, 'debug' | 'warn'>;
  /** A round older than this (seconds) is refused for a current price; a feed that stopped is no price. */
  maxAgeSeconds?: number;
}

interface Round {
  roundId: bigint;
  answer: bigint;
  updatedAt: bigint;
}

const PHASE_SHIFT = 64n;
/** A time an hour ahead of the clock is a wrong one. */
const MAX_FUTURE_SKEW_S = 3600n;

export function createChainlinkSource(options: ChainlinkSourceOptions): PriceSource {
  const { logger, maxAgeSeconds } = options;
  const feedOf = new Map(options.feeds.map((feed) => [`${feed.chainId}:${feed.token}`, feed]));
  const decimalsOf = new Map<string, number>();

  /** A view call: undefined when the contract reverts or has no code; a transport fault throws. */
  async function call<T>(client: PublicClient, feed: ChainlinkFeed, functionName: 'decimals' | 'latestRoundData' | 'getRoundData', args?: readonly [bigint]): Promise<T | undefined> {
    try {
      return (await client.readContract({ address: feed.feed as Address, abi: AGGREGATOR_V3, functionName, args })) as T;
    } catch (error) {
      if (isRevert(error)) return undefined;
      throw new PriceSourceError('unavailable', CHAINLINK_SOURCE_NAME, `chain ${feed.chainId}: ${functionName} of ${feed.feed} failed: ${(error as Error).message.split('\n')[0]}`, { cause: error });
    }
  }

  async function decimals(client: PublicClient, feed: ChainlinkFeed): Promise<number | undefined> {
    const key = `${feed.chainId}:${feed.feed}`;
    const known = decimalsOf.get(key);
    if (known !== undefined) return known;
    const read = await call<number>(client, feed, 'decimals');
    if (read === undefined || !Number.isInteger(read) || read > 36) return undefined;
    decimalsOf.set(key, read);
    return read;
  }

  async function round(client: PublicClient, feed: ChainlinkFeed, roundId?: bigint): Promise<Round | undefined> {
    const read = roundId === undefined
      ? await call<readonly [bigint, bigint, bigint, bigint, bigint]>(client, feed, 'latestRoundData')
      : await call<readonly [bigint, bigint, bigint, bigint, bigint]>(client, feed, 'getRoundData', [roundId]);
    if (read === undefined) return undefined;
    const [id, answer, , updatedAt] = read;
    // An incomplete round (updatedAt 0) is no round.
    return updatedAt === 0n ? undefined : { roundId: id, answer, updatedAt };
  }

  /** The newest round of the feed updated at or before `atS`, by binary search within each phase. */
  async function roundAt(client: PublicClient, feed: ChainlinkFeed, latest: Round, atS: bigint): Promise<Round | undefined> {
    if (latest.updatedAt <= atS) return latest;
    const mask = (1n << PHASE_SHIFT) - 1n;
    let phase = latest.roundId >> PHASE_SHIFT;
    let high = latest.roundId & mask;
    for (;;) {
      // Rounds low..high of this phase; `high` is known to be after `atS` (or unread).
      let low = 1n;
      let found: Round | undefined;
      while (low < high) {
        const middle = (low + high) / 2n;
        const candidate = await round(client, feed, (phase << PHASE_SHIFT) | middle);
        if (candidate && candidate.updatedAt <= atS) {
          found = candidate;
          low = middle + 1n;
        } else {
          high = middle;
        }
      }
      if (found) return found;
      // Every round of this phase is after the time: the phase before it ends earlier.
      if (phase <= 1n) return undefined;
      phase -= 1n;
      const last = await phaseEnd(client, feed, phase);
      if (last === undefined) return undefined;
      if (last.updatedAt <= atS) return last;
      high = last.roundId & mask;
    }
  }

  /** The last round of an earlier phase: its count found by doubling, then halving. */
  async function phaseEnd(client: PublicClient, feed: ChainlinkFeed, phase: bigint): Promise<Round | undefined> {
    const at = (n: bigint) => round(client, feed, (phase << PHASE_SHIFT) | n);
    let last = await at(1n);
    if (!last) return undefined;
    let low = 1n;
    let high = 2n;
    for (;;) {
      const next = await at(high);
      if (!next) break;
      last = next;
      low = high;
      high *= 2n;
      if (high > 1n << 40n) return last;
    }
    while (high - low > 1n) {
      const middle = (low + high) / 2n;
      const candidate = await at(middle);
      if (candidate) {
        last = candidate;
        low = middle;
      } else high = middle;
    }
    return last;
  }

  function quote(feed: ChainlinkFeed, token: TokenRef, found: Round, decimalCount: number, nowS: bigint): PriceQuote | undefined {
    const refuse = (reason: string) => {
      logger.warn({ source: CHAINLINK_SOURCE_NAME, chainId: feed.chainId, feed: feed.feed, round: String(found.roundId), answer: String(found.answer), reason }, 'price refused');
      return undefined;
    };
    if (found.answer <= 0n) return refuse('the answer is not > 0');
    if (found.updatedAt > nowS + MAX_FUTURE_SKEW_S) return refuse('updated in the future');
    return { chainId: token.chainId, address: token.address, priceUsd: decimalText(found.answer, decimalCount), at: new Date(Number(found.updatedAt) * 1000), source: CHAINLINK_SOURCE_NAME };
  }

  async function quoteAll(tokens: readonly TokenRef[], pick: (client: PublicClient, feed: ChainlinkFeed, latest: Round, nowS: bigint) => Promise<Round | undefined>): Promise<PriceQuote[]> {
    const nowS = BigInt(Math.floor(Date.now() / 1000));
    const quotes = await Promise.all(
      tokens.map(async (token) => {
        const feed = feedOf.get(`${token.chainId}:${token.address.toLowerCase()}`);
        if (!feed) return undefined;
        const client = options.clientFor(feed.chainId);
        if (!client) {
          logger.debug({ source: CHAINLINK_SOURCE_NAME, chainId: feed.chainId }, 'no RPC endpoint for the chain: its feeds are not read');
          return undefined;
        }
        const decimalCount = await decimals(client, feed);
        const latest = decimalCount === undefined ? undefined : await round(client, feed);
        if (decimalCount === undefined || latest === undefined) {
          logger.warn({ source: CHAINLINK_SOURCE_NAME, chainId: feed.chainId, feed: feed.feed }, 'not a price feed (decimals or latestRoundData give no answer): token not quoted');
          return undefined;
        }
        const found = await pick(client, feed, latest, nowS);
        return found && quote(feed, token, found, decimalCount, nowS);
      }),
    );
    return quotes.filter((item) => item !== undefined);
  }

  return {
    name: CHAINLINK_SOURCE_NAME,
    current: (tokens) =>
      quoteAll(tokens, async (_client, feed, latest, nowS) => {
        if (maxAgeSeconds !== undefined && latest.updatedAt < nowS - BigInt(maxAgeSeconds)) {
          logger.warn({ source: CHAINLINK_SOURCE_NAME, chainId: feed.chainId, feed: feed.feed, updatedAt: String(latest.updatedAt) }, 'price refused: the feed has not been updated for longer than maxAgeSeconds');
          return undefined;
        }
        return latest;
      }),
    historical: (tokens, at) => {
      const atS = BigInt(Math.floor(at.getTime() / 1000));
      return quoteAll(tokens, (client, feed, latest) => roundAt(client, feed, latest, atS));
    },
  };
}

/**
 * `answer / 10^decimals` written out without an exponent or trailing zeros, to at most 18 decimals
 * (what the price history keeps; digits beyond are cut).
 */
export function decimalText(answer: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const whole = answer / scale;
  const fraction = (answer % scale).toString().padStart(decimals, '0').slice(0, 18).replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}
