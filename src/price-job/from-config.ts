import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { parseChainlinkFeeds } from '../chain/chainlink-feeds.js';
import { createRpc } from '../chain/rpc.js';
import { createSessionLock, type SessionLock } from '../db/session-lock.js';
import { createChainlinkSource } from '../prices/chainlink.js';
import { createDefiLlamaSource, DEFILLAMA_CHAINS } from '../prices/defillama.js';
import type { PriceSource } from '../prices/source.js';
import type { PriceJobSettings } from './job.js';

/** The price job's session lock: one process per database runs its rounds (src/ingest/price-locks.ts lists the keys). */
const PRICE_JOB_LOCK: readonly [number, number] = [731_284_159, 0];

/** Coins asked for in one DefiLlama request: few enough that its URLs stay under the length limits servers and proxies commonly set. */
const DEFILLAMA_TOKENS_PER_REQUEST = 80;

/** `31337=8453,…` as chain id -> chain id. */
export function parseChainAliases(text: string | undefined): Map<number, number> {
  const aliases = new Map<number, number>();
  for (const entry of (text ?? '').split(',')) {
    const [from, to] = entry.split('=').map((part) => part.trim());
    if (from && to) aliases.set(Number(from), Number(to));
  }
  return aliases;
}

/**
 * The price sources PRICE_SOURCES names, in its order; none for `none`. Chainlink feeds are read
 * through `rpcUrls`, the endpoints the indexer follows each chain with.
 */
export function createPriceSources(config: Config, logger: Pick<Logger, 'debug' | 'warn'>, rpcUrls: ReadonlyMap<number, string>): PriceSource[] {
  if (config.PRICE_SOURCES === 'none') return [];
  const sources: PriceSource[] = [];
  for (const name of new Set(config.PRICE_SOURCES.split(','))) {
    if (name === 'defillama') {
      const chains = { ...DEFILLAMA_CHAINS };
      for (const [from, to] of parseChainAliases(config.PRICE_CHAIN_ALIASES)) {
        const chain = DEFILLAMA_CHAINS[to];
        if (chain) chains[from] = chain;
        else logger.warn({ from, to }, `PRICE_CHAIN_ALIASES: DefiLlama does not price chain ${to}; chain ${from} stays unpriced`);
      }
      sources.push(
        createDefiLlamaSource({
          baseUrl: config.PRICE_DEFILLAMA_URL,
          timeoutMs: config.PRICE_REQUEST_TIMEOUT_MS,
          maxTokensPerRequest: DEFILLAMA_TOKENS_PER_REQUEST,
          logger,
          chains,
        }),
      );
    }
    if (name === 'chainlink') {
      const clients = new Map(
        [...rpcUrls].map(([chainId, url]) => [chainId, createRpc({ url, timeoutMs: config.PRICE_REQUEST_TIMEOUT_MS, baseBackoffMs: 0, maxBackoffMs: 0 }).client]),
      );
      sources.push(
        createChainlinkSource({
          feeds: parseChainlinkFeeds(config.PRICE_CHAINLINK_FEEDS ?? '').feeds,
          clientFor: (chainId) => clients.get(chainId),
          logger,
          // A feed's heartbeat is at most a day: a round older than a day and an hour means the feed stopped.
          maxAgeSeconds: 25 * 3600,
        }),
      );
    }
  }
  return sources;
}

/** The job's settings: the configured ones, and fixed ones no operator has needed to change. */
export function priceJobSettings(config: Config, chains: readonly number[]): PriceJobSettings {
  return {
    pollMs: config.PRICE_POLL_MS,
    hoursPerRound: 20,
    claimsPerLook: 20_000,
    chains,
    baseBackoffMs: 1000,
    maxBackoffMs: 5 * 60_000,
    maxRetryAfterMs: config.PRICE_MAX_RETRY_AFTER_MS,
    retryHoursAfterMs: 60 * 60_000,
  };
}

/**
 * The lock that lets one process per database run the price job's rounds (the indexer's job and
 * `npm run prices` alike), or null where none is needed or possible: the embedded database has one
 * process at a time, and a session lock through a transaction pooler would stay behind on a server
 * connection, so there it needs MIGRATE_DATABASE_URL (a direct connection).
 */
export function priceJobLock(
  config: Pick<Config, 'DATABASE_URL' | 'MIGRATE_DATABASE_URL' | 'DB_POOL_MODE' | 'DB_CONNECT_TIMEOUT_MS' | 'DB_APPLICATION_NAME'>,
  logger: Pick<Logger, 'warn'>,
): SessionLock | null {
  if (!config.DATABASE_URL) return null;
  const url = config.MIGRATE_DATABASE_URL ?? (config.DB_POOL_MODE === 'transaction' ? undefined : config.DATABASE_URL);
  if (!url) {
    logger.warn('DB_POOL_MODE=transaction without MIGRATE_DATABASE_URL: the price job runs without its lock, so run one price job per database');
    return null;
  }
  return createSessionLock({ url, key: PRICE_JOB_LOCK, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS, applicationName: `${config.DB_APPLICATION_NAME} price job` });
}
