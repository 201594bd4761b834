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
 *
 * Faults: a feed that answers, but not as a feed does (it reverts, has no code, returns bytes that do
 * not decode), is left out with a warning, and the other feeds still answer. A feed whose chain did
 * not answer (connection refused, timeout, an RPC error) is left out too, so that one chain's endpoint
 * being down does not stop the others' prices; only when no feed could be read at all does the source
 * throw `unavailable`, and the price job backs off.
 */
import type { Logger } from 'pino';
import {
  type Address,
  BaseError,
  HttpRequestError,
  parseAbi,
  type PublicClient,
  RpcError,
  RpcRequestError,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
} from 'viem';
import type { ChainlinkFeed } from '../chain/chainlink-feeds.js';
import { isRevert } from '../chain/rpc.js';
import { type OnRefused, type PriceQuote, type PriceSource, PriceSourceError, type TokenRef } from './source.js';

export const CHAINLINK_SOURCE_NAME = 'chainlink';

/** The part of Chainlink's AggregatorV3Interface a price is read with. */
const AGGREGATOR_V3 = parseAbi([
  'function decimals() view returns (uint8)',
  'function description() view returns (string)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function getRoundData(uint80 roundId) view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

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
  /** 0 while the round is not complete. */
  updatedAt: bigint;
}

type RoundData = readonly [roundId: bigint, answer: bigint, startedAt: bigint, updatedAt: bigint, answeredInRound: bigint];

/** The feed answered, but not as a price feed does. */
class NotAFeed extends Error {}

/** The feed's chain did not answer. */
class ChainSilent extends Error {}

const PHASE_SHIFT = 64n;
const ROUND_MASK = (1n << PHASE_SHIFT) - 1n;
/** A time an hour ahead of the clock is a wrong one. */
const MAX_FUTURE_SKEW_S = 3600n;
/** No Chainlink feed has more; a larger count is a contract that is not a feed. */
const MAX_DECIMALS = 36;
/** Where the doubling search for an earlier phase's last round gives up: no feed has had this many rounds in a phase. */
const MAX_ROUNDS_PER_PHASE = 1n << 40n;

/**
 * The chain did not answer: no connection, a timeout, an HTTP status or a JSON-RPC error other than a
 * revert. What else a call throws came after the node answered (a revert, no code, return data that
 * does not decode as the function's outputs): the contract is no feed, and asking again will not help.
 */
function isTransportFault(error: unknown): boolean {
  if (isRevert(error)) return false;
  if (!(error instanceof BaseError)) return true;
  return Boolean(
    error.walk(
      (cause) =>
        cause instanceof HttpRequestError ||
        cause instanceof TimeoutError ||
        cause instanceof WebSocketRequestError ||
        cause instanceof SocketClosedError ||
        cause instanceof RpcRequestError ||
        cause instanceof RpcError,
    ),
  );
}

export function createChainlinkSource(options: ChainlinkSourceOptions): PriceSource {
  const { logger, maxAgeSeconds } = options;
  const feedOf = new Map(options.feeds.map((feed) => [`${feed.chainId}:${feed.token}`, feed]));
  const decimalsOf = new Map<string, number>();
  const chainsWithoutClient = new Set<number>();

  async function read<T>(client: PublicClient, feed: ChainlinkFeed, functionName: 'decimals' | 'latestRoundData' | 'getRoundData', args: readonly [bigint] | undefined, signal: AbortSignal | undefined): Promise<T> {
    signal?.throwIfAborted();
    try {
      return (await client.readContract({ address: feed.feed as Address, abi: AGGREGATOR_V3, functionName, args })) as T;
    } catch (error) {
      const detail = `${functionName} of ${feed.feed} on chain ${feed.chainId}: ${firstLine(error)}`;
      if (isTransportFault(error)) throw new ChainSilent(detail, { cause: error });
      throw new NotAFeed(detail, { cause: error });
    }
  }

  async function decimals(client: PublicClient, feed: ChainlinkFeed, signal: AbortSignal | undefined): Promise<number> {
    const key = `${feed.chainId}:${feed.feed}`;
    const known = decimalsOf.get(key);
    if (known !== undefined) return known;
    const count = await read<number>(client, feed, 'decimals', undefined, signal);
    if (!Number.isInteger(count) || count < 0 || count > MAX_DECIMALS) throw new NotAFeed(`decimals of ${feed.feed} on chain ${feed.chainId} is ${count}`);
    decimalsOf.set(key, count);
    return count;
  }

  async function latestRound(client: PublicClient, feed: ChainlinkFeed, signal: AbortSignal | undefined): Promise<Round> {
    const [roundId, answer, , updatedAt] = await read<RoundData>(client, feed, 'latestRoundData', undefined, signal);
    return { roundId, answer, updatedAt };
  }

  /** A round by id; undefined when there is none (the feed reverts, or it is not complete). */
  async function roundById(client: PublicClient, feed: ChainlinkFeed, roundId: bigint, signal: AbortSignal | undefined): Promise<Round | undefined> {
    try {
      const [, answer, , updatedAt] = await read<RoundData>(client, feed, 'getRoundData', [roundId], signal);
      return updatedAt === 0n ? undefined : { roundId, answer, updatedAt };
    } catch (error) {
      if (error instanceof NotAFeed) return undefined;
      throw error;
    }
  }

  /**
   * The newest round of the feed updated at or before `atS`: a binary search within the latest
   * phase, then within each earlier one while the phase's first round is already after `atS`.
   * Rounds of a phase are numbered from 1 without gaps and updated in order, so each phase costs
   * about log2 of its rounds in calls (twice that for an earlier phase, whose last round is found first).
   */
  async function roundAt(client: PublicClient, feed: ChainlinkFeed, latest: Round, atS: bigint, signal: AbortSignal | undefined): Promise<Round | undefined> {
    if (latest.updatedAt !== 0n && latest.updatedAt <= atS) return latest;
    let phase = latest.roundId >> PHASE_SHIFT;
    // `high` is a round of this phase known to be after `atS` (or not complete).
    let high = latest.roundId & ROUND_MASK;
    for (;;) {
      let low = 1n;
      let found: Round | undefined;
      while (low < high) {
        const middle = (low + high) / 2n;
        const candidate = await roundById(client, feed, (phase << PHASE_SHIFT) | middle, signal);
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
      const last = await phaseEnd(client, feed, phase, signal);
      if (last === undefined) return undefined;
      if (last.updatedAt <= atS) return last;
      high = last.roundId & ROUND_MASK;
    }
  }

  /** The last round of an earlier phase: its count found by doubling, then halving. */
  async function phaseEnd(client: PublicClient, feed: ChainlinkFeed, phase: bigint, signal: AbortSignal | undefined): Promise<Round | undefined> {
    const at = (n: bigint) => roundById(client, feed, (phase << PHASE_SHIFT) | n, signal);
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
      if (high > MAX_ROUNDS_PER_PHASE) return last;
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

  /** Logs a round refused for a token's feed, tells `onRefused`, and quotes nothing. */
  type Refuse = (found: Round, reason: string) => undefined;

  function refuser(feed: ChainlinkFeed, token: TokenRef, onRefused: OnRefused | undefined): Refuse {
    return (found, reason) => {
      logger.warn(
        { source: CHAINLINK_SOURCE_NAME, chainId: feed.chainId, feed: feed.feed, round: String(found.roundId), answer: String(found.answer), updatedAt: String(found.updatedAt), reason },
        'price refused',
      );
      onRefused?.({ token, reason });
      return undefined;
    };
  }

  function quote(token: TokenRef, found: Round, decimalCount: number, nowS: bigint, refuse: Refuse): PriceQuote | undefined {
    if (found.answer <= 0n) return refuse(found, 'the answer is not > 0');
    if (found.updatedAt > nowS + MAX_FUTURE_SKEW_S) return refuse(found, 'updated in the future');
    const priceUsd = decimalText(found.answer, decimalCount);
    if (priceUsd === '0') return refuse(found, 'the price is below 10^-18, the least the price history keeps');
    return { chainId: token.chainId, address: token.address, priceUsd, at: new Date(Number(found.updatedAt) * 1000), source: CHAINLINK_SOURCE_NAME };
  }

  type Pick = (client: PublicClient, feed: ChainlinkFeed, latest: Round, nowS: bigint, signal: AbortSignal | undefined, refuse: Refuse) => Promise<Round | undefined>;

  async function quoteAll(tokens: readonly TokenRef[], pick: Pick, signal: AbortSignal | undefined, onRefused: OnRefused | undefined): Promise<PriceQuote[]> {
    const nowS = BigInt(Math.floor(Date.now() / 1000));
    let answered = 0;
    const silent: ChainSilent[] = [];
    const quotes = await Promise.all(
      tokens.map(async (token) => {
        const feed = feedOf.get(`${token.chainId}:${token.address.toLowerCase()}`);
        if (!feed) return undefined;
        const client = options.clientFor(feed.chainId);
        if (!client) {
          if (!chainsWithoutClient.has(feed.chainId)) {
            chainsWithoutClient.add(feed.chainId);
            logger.debug({ source: CHAINLINK_SOURCE_NAME, chainId: feed.chainId }, 'no RPC endpoint for the chain: its feeds are not read');
          }
          return undefined;
        }
        try {
          const decimalCount = await decimals(client, feed, signal);
          const refuse = refuser(feed, token, onRefused);
          const found = await pick(client, feed, await latestRound(client, feed, signal), nowS, signal, refuse);
          answered += 1;
          return found && quote(token, found, decimalCount, nowS, refuse);
        } catch (error) {
          if (error instanceof NotAFeed) {
            answered += 1;
            logger.warn({ source: CHAINLINK_SOURCE_NAME, chainId: feed.chainId, feed: feed.feed, err: error.message }, 'not a price feed: token not quoted');
            return undefined;
          }
          if (error instanceof ChainSilent) {
            silent.push(error);
            return undefined;
          }
          throw error;
        }
      }),
    );
    if (silent.length > 0 && answered === 0) {
      throw new PriceSourceError('unavailable', CHAINLINK_SOURCE_NAME, `no feed could be read (${silent.length} tried): ${silent[0]!.message}`, { cause: silent[0]!.cause });
    }
    for (const fault of silent) logger.warn({ source: CHAINLINK_SOURCE_NAME, err: fault.message }, 'feed not read, its chain did not answer: token not quoted');
    return quotes.filter((item) => item !== undefined);
  }

  return {
    name: CHAINLINK_SOURCE_NAME,
    current: (tokens, signal, onRefused) =>
      quoteAll(
        tokens,
        async (_client, _feed, latest, nowS, _signal, refuse) => {
          if (latest.updatedAt === 0n) return refuse(latest, 'the latest round is not complete');
          if (maxAgeSeconds !== undefined && latest.updatedAt < nowS - BigInt(maxAgeSeconds)) return refuse(latest, `not updated for longer than maxAgeSeconds (${maxAgeSeconds})`);
          return latest;
        },
        signal,
        onRefused,
      ),
    historical: (tokens, at, signal, onRefused) => {
      const atS = BigInt(Math.floor(at.getTime() / 1000));
      return quoteAll(tokens, (client, feed, latest, _nowS, pickSignal) => roundAt(client, feed, latest, atS, pickSignal), signal, onRefused);
    },
  };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
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
