import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ConfigError} from '../../src/config.js';
import { loadConfig } from '../../src/config.js';
import { createPriceSources, parseChainAliases, priceJobLock } from '../../src/price-job/from-config.js';

const FEED = '8453:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913=0x7e860098f58bbfc8648a4311b374b1d669a2bc6b';
const logger = pino({ level: 'silent' });
const rpcUrls = new Map([[8453, 'http://127.0.0.1:8545']]);

describe('the price sources from the settings', () => {
  it('are DefiLlama by default, those PRICE_SOURCES names in its order, and none for none', () => {
    expect(createPriceSources(loadConfig({}), logger, rpcUrls).map((source) => source.name)).toEqual(['defillama']);
    expect(
      createPriceSources(loadConfig({ PRICE_SOURCES: 'chainlink,defillama', PRICE_CHAINLINK_FEEDS: FEED }), logger, rpcUrls).map((source) => source.name),
    ).toEqual(['chainlink', 'defillama']);
    expect(createPriceSources(loadConfig({ PRICE_SOURCES: 'none' }), logger, rpcUrls)).toEqual([]);
  });

  it('refuses an unknown source, a malformed feed, and chainlink without feeds, naming each', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    expect(problems({ PRICE_SOURCES: 'coingecko' })[0]).toMatch(/^PRICE_SOURCES/);
    expect(problems({ PRICE_CHAINLINK_FEEDS: '8453:0x12=0x34' })).toEqual(['PRICE_CHAINLINK_FEEDS: "8453:0x12=0x34" is not chainId:0xToken=0xFeed']);
    expect(problems({ PRICE_SOURCES: 'defillama,chainlink' })).toEqual(['PRICE_SOURCES names chainlink, but PRICE_CHAINLINK_FEEDS maps no token to a feed']);
    expect(problems({ PRICE_CHAIN_ALIASES: '31337=base' })[0]).toMatch(/^PRICE_CHAIN_ALIASES/);
  });

  it('reads chain aliases', () => {
    expect([...parseChainAliases(' 31337=8453, 1337=1 ')]).toEqual([
      [31337, 8453],
      [1337, 1],
    ]);
    expect([...parseChainAliases(undefined)]).toEqual([]);
  });

  it('lock the job on a direct session to PostgreSQL: none on the embedded database, none through a transaction pooler without MIGRATE_DATABASE_URL', async () => {
    const warnings: string[] = [];
    const warn = { warn: (message: string) => void warnings.push(message) };
    expect(priceJobLock(loadConfig({}), warn)).toBeNull();
    const pooled = { DATABASE_URL: 'postgres://u:p@pgbouncer:6432/db', DB_POOL_MODE: 'transaction' };
    expect(priceJobLock(loadConfig(pooled), warn)).toBeNull();
    expect(warnings).toEqual(['DB_POOL_MODE=transaction without MIGRATE_DATABASE_URL: the price job runs without its lock, so run one price job per database']);
    const direct = priceJobLock(loadConfig({ ...pooled, MIGRATE_DATABASE_URL: 'postgres://u:p@postgres:5432/db' }), warn);
    expect(direct).not.toBeNull();
    await direct?.close();
    const session = priceJobLock(loadConfig({ DATABASE_URL: 'postgres://u:p@postgres:5432/db' }), warn);
    expect(session).not.toBeNull();
    await session?.close();
    expect(warnings).toHaveLength(1);
  });
});
