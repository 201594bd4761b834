import { pino } from 'pino';
import type { Address } from 'viem';
import {
  ASSET,
  claimFor,
  createBoost,
  type Deployed,
  deployComponents,
  type LocalChain,
  startAnvil,
  TARGET,
  userAddress,
} from '../../scripts/chain/local-chain.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { createIndexer, type IndexerHooks, type IndexerSettings } from '../../src/indexer/indexer.js';
import { writePrices } from '../../src/ingest/prices.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import { ingest } from '../../src/ingest/write.js';
import type { UpsertRecord } from '../../src/ingest/records.js';

/** The chain tests' world: anvil with the test contracts, and what an operator imports beside the chain. */

export const MEMBERS: Address[] = [userAddress(1), userAddress(2)];

export async function startChain(): Promise<{ chain: LocalChain; deployed: Deployed }> {
  const chain = await startAnvil();
  const deployed = await deployComponents(chain, MEMBERS);
  return { chain, deployed };
}

/** The token price and the contract name the chain does not have (an operator imports them). */
export function operatorRecords(chainId: number): UpsertRecord[] {
  return [
    {
      kind: 'token',
      chainId,
      address: ASSET,
      id: '11111111-1111-4111-8111-111111111111',
      name: 'USD Coin',
      symbol: 'USDC',
      decimals: 18,
      imageUri: 'https://example.com/usdc.png',
      isWhitelisted: true,
      priceUsd: '2.000000',
    },
    { kind: 'contract', chainId, address: TARGET, name: 'Target Protocol' },
  ];
}

export async function importRecords(database: DatabaseHandle, records: UpsertRecord[]): Promise<void> {
  await ingest(database, memorySource(records), { derived: 'live' });
}

/**
 * The imported tokens' prices in the price history as a price source would have quoted them a
 * minute ago: the claims a test makes next are valued with them (an import's own price is dated at
 * the import, and a claim in the same second would find it after its block's whole second).
 */
export async function quotePrices(database: DatabaseHandle, records: UpsertRecord[], at = new Date(Date.now() - 60_000)): Promise<void> {
  const quotes = records.flatMap((record) =>
    record.kind === 'token' && record.priceUsd ? [{ chainId: record.chainId, address: record.address, priceUsd: record.priceUsd, at, source: 'test' }] : [],
  );
  await writePrices(database, quotes);
}

/**
 * Boost 0: an ERC-20 and a variable-criteria V2 incentive, a SimpleAllowList with members.
 * Boost 1: a points, an allow-list and an unknown incentive, the open allow list.
 */
export async function createCampaigns(chain: LocalChain, deployed: Deployed) {
  const base = { owner: chain.account, budget: chain.account, validator: deployed.core, action: deployed.action };
  await createBoost(chain, deployed.core, {
    ...base,
    allowList: { address: deployed.allowList, owner: chain.account, members: MEMBERS },
    incentives: [deployed.erc20, deployed.variableV2],
    protocolFee: 500n,
    maxParticipants: 100n,
  });
  await createBoost(chain, deployed.core, {
    ...base,
    allowList: { address: deployed.openAllowList, owner: '0x0000000000000000000000000000000000000000', members: [] },
    incentives: [deployed.points, deployed.allowListIncentive, deployed.unknown],
  });
}

/** Six claims; the one of the unknown incentive is not indexed. */
export async function makeClaims(chain: LocalChain, deployed: Deployed) {
  await claimFor(chain, deployed.core, 0n, 0n, userAddress(1));
  await claimFor(chain, deployed.core, 0n, 0n, userAddress(2));
  await claimFor(chain, deployed.core, 0n, 1n, userAddress(1), 3n * 10n ** 18n);
  await claimFor(chain, deployed.core, 1n, 0n, userAddress(3));
  await claimFor(chain, deployed.core, 1n, 1n, userAddress(1));
  await claimFor(chain, deployed.core, 1n, 2n, userAddress(2));
}

export const SETTINGS: IndexerSettings = { confirmations: 0, blockRange: 2000, pollMs: 50, reorgDepth: 256, rpcTimeoutMs: 5000, baseBackoffMs: 20, maxBackoffMs: 200 };

export async function indexOnce(chain: LocalChain, core: Address, database: DatabaseHandle, settings: Partial<IndexerSettings> = {}, hooks: IndexerHooks = {}) {
  const indexer = createIndexer(
    [{ chainId: chain.chainId, rpcUrl: chain.url, cores: [{ address: core, startBlock: 0n }] }],
    database,
    { ...SETTINGS, ...settings },
    pino({ level: process.env.INDEXER_TEST_LOG ?? 'silent' }),
    hooks,
  );
  await indexer.run({ once: true });
}
