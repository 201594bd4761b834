import type { AddressInfo } from 'node:net';
import { type Boost, Roles, StrategyType } from '@boostxyz/sdk';
import { type Address, parseEther, parseUnits } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { startStatusServer } from '../../src/indexer/http.js';
import { createIndexer } from '../../src/indexer/indexer.js';
import { IndexerStatus } from '../../src/indexer/status.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import { createPriceSources, priceJobSettings } from '../../src/price-job/from-config.js';
import { createPriceJob } from '../../src/price-job/job.js';
import { PriceMetrics } from '../../src/price-job/metrics.js';
import { ingest } from '../../src/ingest/write.js';
import type { UpsertRecord } from '../../src/ingest/records.js';
import { amountData, boostBasics, claim, ISSUE_SELECTOR, NO_AMOUNT, transferCriteria } from './boosts.js';
import { startDefiLlamaStandIn } from './defillama-stand-in.js';
import { startAnvil, userAddress } from './local-chain.js';
import { deployProtocol, devAccount } from './protocol.js';

/**
 * `npm run chain:demo`: a local chain (anvil, a block a second) with the Boost protocol deployed
 * from the bytecode @boostxyz/sdk ships (scripts/chain/protocol.ts: the legacy, non-proxy core),
 * boosts of several incentive variants and allow lists made through the SDK's createBoost, and
 * claims signed by the validator's signer; the indexer follows the chain into the database
 * (DATABASE_URL, or an embedded one in memory) and the API serves it. The price job asks a local
 * stand-in of DefiLlama's coins API (the chain is priced as Base: PRICE_CHAIN_ALIASES) for the
 * tokens' prices, current and at the claims' times. A claim is made every few seconds: watch it
 * appear in the API, valued in USD. Ctrl-C stops everything.
 */

const config = loadConfig({ PGLITE_DATA_DIR: 'memory://', LOG_LEVEL: 'warn', DEMO_DATA: 'false', PORT: '3000', ...process.env });
const logger = pino({ level: config.LOG_LEVEL });
const say = (line: string) => process.stdout.write(`${line}\n`);

say('starting anvil (a block a second) and deploying the Boost protocol from @boostxyz/sdk bytecode...');
const chain = await startAnvil();
const protocol = await deployProtocol(chain);
const { core, registry, budget, token, usd, points, owner } = protocol;
const manager = budget.assertValidAddress();
const [m1, m2, m3] = [devAccount(1), devAccount(2), devAccount(3)];
const members = [m1, m2, m3];
const relayer = devAccount(4);
const denied = devAccount(7).address;
const referrer: Address = '0x00000000000000000000000000000000000000aa';

say('creating boosts and claims through the SDK...');
// The list the AllowListIncentive adds its claimants to: it needs the manager role there.
const membershipList = await registry.initialize('Demo membership list', core.SimpleAllowList({ owner: owner.address, allowed: [] }));
const boosts: Boost[] = [];
// 0: ERC-20 (POOL) and variable criteria, a SimpleAllowList of three members.
boosts.push(
  await core.createBoost({
    ...boostBasics(protocol),
    maxParticipants: 1000n,
    allowList: core.SimpleAllowList({ owner: owner.address, allowed: members.map((account) => account.address) }),
    incentives: [
      core.ERC20Incentive({ asset: token, strategy: StrategyType.POOL, reward: parseEther('1'), limit: 100n, manager }),
      core.ERC20VariableCriteriaIncentive({ asset: token, reward: parseEther('0.5'), limit: parseEther('30'), maxReward: parseEther('4'), criteria: transferCriteria(token) }),
    ],
  }),
);
// 1: points, CGDA and allow-list incentives, the open allow list.
boosts.push(
  await core.createBoost({
    ...boostBasics(protocol),
    maxParticipants: 0n,
    allowList: core.OpenAllowList(),
    incentives: [
      core.PointsIncentive({ venue: points, selector: ISSUE_SELECTOR, reward: 7n, limit: 1000n }),
      core.CGDAIncentive({ asset: token, initialReward: parseEther('1'), rewardDecay: parseEther('0.1'), rewardBoost: parseEther('0.05'), totalBudget: parseEther('10'), manager }),
      core.AllowListIncentive({ allowList: membershipList.assertValidAddress(), limit: 100n }),
    ],
  }),
);
await membershipList.grantManyRoles([boosts[1]!.incentives[2]!.assertValidAddress()], [Roles.MANAGER]);
// 2: ERC-20 RAFFLE and pegged (TUSD paid at TEST's value), a SimpleDenyList.
boosts.push(
  await core.createBoost({
    ...boostBasics(protocol),
    maxParticipants: 100n,
    allowList: core.SimpleDenyList({ owner: owner.address, denied: [denied] }),
    incentives: [
      // The draw needs the manager role: the creator keeps it.
      core.ERC20Incentive({ asset: token, strategy: StrategyType.RAFFLE, reward: parseEther('5'), limit: 10n, manager: owner.address }),
      core.ERC20PeggedIncentive({ asset: usd, peg: token, reward: parseEther('2'), limit: parseUnits('500', 6), manager }),
    ],
  }),
);
// 3: ERC-20 (POOL) in TUSD, the open allow list: claimed every few seconds below.
boosts.push(
  await core.createBoost({
    ...boostBasics(protocol),
    maxParticipants: 0n,
    allowList: core.OpenAllowList(),
    incentives: [core.ERC20Incentive({ asset: usd, strategy: StrategyType.POOL, reward: parseUnits('1', 6), limit: 100_000n, manager })],
  }),
);
const [b0, b1, b2, b3] = boosts as [Boost, Boost, Boost, Boost];
const self = (account: PrivateKeyAccount) => ({ sender: account });
const relayed = { sender: relayer, referrer };
// Members claim for themselves, or a relayer sends the claim on their behalf.
await claim(protocol, b0, 0, m1.address, NO_AMOUNT, self(m1));
await claim(protocol, b0, 0, m2.address, NO_AMOUNT, relayed);
await claim(protocol, b0, 0, m3.address, NO_AMOUNT, self(m3));
await claim(protocol, b0, 1, m1.address, amountData(parseEther('3')), self(m1));
await claim(protocol, b1, 0, m1.address, NO_AMOUNT, self(m1));
await claim(protocol, b1, 0, m2.address, NO_AMOUNT, self(m2));
await claim(protocol, b1, 1, m3.address, NO_AMOUNT, self(m3));
await claim(protocol, b1, 2, m1.address, NO_AMOUNT, self(m1));
for (const member of members) await claim(protocol, b2, 0, member.address, NO_AMOUNT, self(member));
await claim(protocol, b2, 1, m2.address, amountData(parseUnits('10', 6)), self(m2));
// Anyone may claim from boost 3: fresh addresses, with no key nor ether, through the relayer.
let next = 100;
for (let n = 0; n < 3; n++) await claim(protocol, b3, 0, userAddress(next++), NO_AMOUNT, relayed);

// Set up instantly (a block per transaction), then a block a second like a real chain.
await chain.public.request({ method: 'evm_setIntervalMining', params: [1] } as never);

const database = await openDatabase(config, logger);
await database.migrate();
// What the chain does not have, as an operator imports it: token metadata and contracts' names.
// Prices come from the price job.
const operatorRecords: UpsertRecord[] = [
  {
    kind: 'token',
    chainId: chain.chainId,
    address: token.toLowerCase(),
    id: '11111111-1111-4111-8111-111111111111',
    name: 'Test Token',
    symbol: 'TEST',
    decimals: 18,
    imageUri: 'https://example.com/test.png',
    isWhitelisted: true,
  },
  {
    kind: 'token',
    chainId: chain.chainId,
    address: usd.toLowerCase(),
    id: '22222222-2222-4222-8222-222222222222',
    name: 'Test Dollar',
    symbol: 'TUSD',
    decimals: 6,
    imageUri: 'https://example.com/tusd.png',
    isWhitelisted: true,
  },
  // The EventAction's steps target the TEST token.
  { kind: 'contract', chainId: chain.chainId, address: token.toLowerCase(), name: 'Demo Token' },
  { kind: 'contract', chainId: chain.chainId, address: points.toLowerCase(), name: 'Demo Points' },
];
await ingest(database, memorySource(operatorRecords), { derived: 'live' });

// The stand-in's price table: TEST about $2, TUSD $1, ether about $3,000, a point every five minutes
// from two hours before the chain's first block, and a new point every half minute while it runs.
const priceStandIn = await startDefiLlamaStandIn();
const coins = [
  { coin: `base:${token.toLowerCase()}`, symbol: 'TEST', decimals: 18, price: (s: number) => 2 + 0.1 * Math.sin(s / 3600) },
  { coin: `base:${usd.toLowerCase()}`, symbol: 'TUSD', decimals: 6, price: () => 1 },
  { coin: 'coingecko:ethereum', symbol: 'ETH', decimals: undefined, price: (s: number) => 3000 + 50 * Math.sin(s / 7200) },
];
const addPricePoints = (at: number) => {
  for (const { coin, symbol, decimals, price } of coins) priceStandIn.setPrice(coin, { at, price: Number(price(at).toFixed(6)), symbol, ...(decimals ? { decimals } : {}) });
};
const genesis = await chain.public.getBlock({ blockNumber: 0n });
for (let at = Number(genesis.timestamp) - 7200; at < Date.now() / 1000; at += 300) addPricePoints(at);
const pricePoints = setInterval(() => addPricePoints(Math.floor(Date.now() / 1000)), 30_000);
const priceConfig = { ...config, PRICE_SOURCES: 'defillama', PRICE_DEFILLAMA_URL: priceStandIn.url, PRICE_CHAIN_ALIASES: `${chain.chainId}=8453`, PRICE_POLL_MS: 5000 };
const coreAddress = core.assertValidAddress();
const status = new IndexerStatus(config.INDEXER_LAG_BUDGET_S);
const confirmations = 1;
const indexer = createIndexer(
  [{ chainId: chain.chainId, rpcUrl: chain.url, cores: [{ address: coreAddress, startBlock: 0n }] }],
  database,
  { confirmations, blockRange: config.INDEXER_BLOCK_RANGE, pollMs: 250, reorgDepth: config.INDEXER_REORG_DEPTH, rpcTimeoutMs: config.INDEXER_RPC_TIMEOUT_MS },
  logger,
  { onProgress: (progress) => status.record(progress), onRpcError: (chainId) => status.rpcError(chainId) },
);
const indexing = indexer.run();
const prices = createPriceJob({
  database,
  sources: createPriceSources(priceConfig, logger, new Map([[chain.chainId, chain.url]])),
  settings: priceJobSettings(priceConfig, [chain.chainId]),
  logger,
  metrics: new PriceMetrics(status.registry),
});
prices.start();
const statusServer = await startStatusServer(status, 1, config.HOST, config.INDEXER_METRICS_PORT || 0);
const app = await buildApp(config, { database, logger });
await app.listen({ port: config.PORT, host: config.HOST });

const coreId = coreAddress.toLowerCase();
// PORT=0 takes any free port (the test does, so no other process can take it between choosing and binding).
const api = config.PORT === 0 ? `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` : config.BASE_URL;
const campaign = (boost: number) => `${api}/campaigns/${chain.chainId}:${coreId}:${boost}`;
say(`
  Chain:      anvil at ${chain.url} (chain id ${chain.chainId}); the Boost protocol from @boostxyz/sdk bytecode
              (legacy core), BoostCore ${coreId}, BoostRegistry ${registry.assertValidAddress().toLowerCase()}
  Database:   ${database.location}
  Indexer:    ${confirmations} confirmation; metrics ${statusServer.url}/metrics, readiness ${statusServer.url}/health/ready
  Prices:     the price job, from a local stand-in of DefiLlama's coins API at ${priceStandIn.url}

  API:        ${api}/docs
              ${api}/campaigns
              ${campaign(0)}      (ERC-20 POOL + variable criteria, SimpleAllowList of 3 members)
              ${campaign(1)}      (points + CGDA + allow-list incentive, open allow list)
              ${campaign(2)}      (ERC-20 RAFFLE + pegged, SimpleDenyList)
              ${campaign(3)}      (ERC-20 POOL in TUSD, open allow list)
              ${campaign(3)}/activity
              ${api}/reward-kit/trending?sortBy=1h
              ${api}/explore/contracts?timePeriod=6h

  A claim of campaign 3 is made 5 seconds after the one before; it shows in the API within ${confirmations + 2} blocks. Ctrl-C stops.
`);

// One claim at a time: each waits for its block, and the relayer sends them all.
let stopping = false;
let timer: NodeJS.Timeout | undefined;
const claimLater = () => {
  timer = setTimeout(() => {
    const claimant = userAddress(next++);
    claim(protocol, b3, 0, claimant, NO_AMOUNT, relayed)
      .then(
        ({ blockNumber }) => say(`claimed by ${claimant} in block ${blockNumber}`),
        (error: unknown) => say(`claim failed: ${(error as Error).message}`),
      )
      .finally(() => {
        if (!stopping) claimLater();
      });
  }, 5000);
};
claimLater();

const stop = () => {
  if (stopping) return;
  stopping = true;
  clearTimeout(timer);
  clearInterval(pricePoints);
  indexer.stop();
  void indexing
    .catch(() => undefined)
    .then(() => prices.close())
    .then(() => priceStandIn.close())
    .then(() => app.close())
    .then(() => statusServer.close())
    .then(() => database.close())
    .then(() => chain.stop())
    .then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
