import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { startStatusServer } from '../../src/indexer/http.js';
import { createIndexer } from '../../src/indexer/indexer.js';
import { IndexerStatus } from '../../src/indexer/status.js';
import { validateRecord } from '../../src/ingest/validate.js';
import { ingest } from '../../src/ingest/write.js';
import type { UpsertRecord } from '../../src/ingest/records.js';
import { ASSET, claimFor, createBoost, deploy, deployComponents, startAnvil, TARGET, userAddress, VENUE } from './local-chain.js';

/**
 * `npm run chain:demo`: a local chain (anvil, a block a second), the test contracts, boosts of
 * several incentive variants and claims from them; the indexer follows the chain into the database
 * (DATABASE_URL, or an embedded one in memory) and the API serves it. A claim is made every few
 * seconds: watch it appear in the API. Ctrl-C stops everything.
 */

const config = loadConfig({ PGLITE_DATA_DIR: 'memory://', LOG_LEVEL: 'warn', DEMO_DATA: 'false', PORT: '3000', ...process.env });
const logger = pino({ level: config.LOG_LEVEL });
const say = (line: string) => process.stdout.write(`${line}\n`);

say('starting anvil (a block a second) and deploying the test contracts...');
const chain = await startAnvil();
const members = [userAddress(1), userAddress(2), userAddress(3)];
const deployed = await deployComponents(chain, members);
const base = { owner: chain.account, budget: chain.account, validator: deployed.core, action: deployed.action };
await createBoost(chain, deployed.core, {
  ...base,
  allowList: { address: deployed.allowList, owner: chain.account, members },
  incentives: [deployed.erc20, deployed.variableV2],
  protocolFee: 500n,
  maxParticipants: 1000n,
});
await createBoost(chain, deployed.core, {
  ...base,
  allowList: { address: deployed.openAllowList, owner: '0x0000000000000000000000000000000000000000', members: [] },
  incentives: [deployed.points, deployed.allowListIncentive],
});
const third = await deploy(chain, 'TestERC20Incentive', [ASSET, 0, 5n * 10n ** 17n, 10_000n]);
await createBoost(chain, deployed.core, {
  ...base,
  allowList: { address: deployed.openAllowList, owner: '0x0000000000000000000000000000000000000000', members: [] },
  incentives: [third],
});
for (let n = 1; n <= 5; n++) await claimFor(chain, deployed.core, 0n, 0n, userAddress(n));
await claimFor(chain, deployed.core, 0n, 1n, userAddress(1), 3n * 10n ** 18n);
await claimFor(chain, deployed.core, 1n, 0n, userAddress(6));
await claimFor(chain, deployed.core, 1n, 1n, userAddress(2));

// Set up instantly (a block per transaction), then a block a second like a real chain.
await chain.public.request({ method: 'evm_setIntervalMining', params: [1] } as never);

const database = await openDatabase(config, logger);
await database.migrate();
// What the chain does not have, as an operator imports it: a token price, a contract's name, a campaign's name.
const operatorRecords: UpsertRecord[] = [
  {
    kind: 'token',
    chainId: chain.chainId,
    address: ASSET,
    id: '11111111-1111-4111-8111-111111111111',
    name: 'USD Coin',
    symbol: 'USDC',
    decimals: 18,
    imageUri: 'https://example.com/usdc.png',
    isWhitelisted: true,
    priceUsd: '1.000000',
  },
  { kind: 'contract', chainId: chain.chainId, address: TARGET, name: 'Demo Protocol' },
  { kind: 'contract', chainId: chain.chainId, address: VENUE, name: 'Demo Points' },
];
await ingest(
  database,
  (async function* () {
    let line = 0;
    for (const record of operatorRecords) {
      const validated = validateRecord(record);
      if (!validated.ok) throw new Error(validated.error);
      yield { line: ++line, key: validated.key, record: validated.record };
    }
  })(),
  { derived: 'live' },
);

const status = new IndexerStatus(config.INDEXER_LAG_BUDGET_S);
const confirmations = 1;
const indexer = createIndexer(
  [{ chainId: chain.chainId, rpcUrl: chain.url, cores: [{ address: deployed.core, startBlock: 0n }] }],
  database,
  { confirmations, blockRange: config.INDEXER_BLOCK_RANGE, pollMs: 250, reorgDepth: config.INDEXER_REORG_DEPTH, rpcTimeoutMs: config.INDEXER_RPC_TIMEOUT_MS },
  logger,
  { onProgress: (progress) => status.record(progress), onRpcError: (chainId) => status.rpcError(chainId) },
);
const indexing = indexer.run();
const statusServer = await startStatusServer(status, 1, config.HOST, config.INDEXER_METRICS_PORT || 0);
const app = await buildApp(config, { database, logger });
await app.listen({ port: config.PORT, host: config.HOST });

const core = deployed.core.toLowerCase();
const api = config.BASE_URL;
say(`
  Chain:      anvil at ${chain.url} (chain id ${chain.chainId}), BoostCore ${core}
  Database:   ${database.location}
  Indexer:    ${confirmations} confirmation; metrics ${statusServer.url}/metrics, readiness ${statusServer.url}/health/ready

  API:        ${api}/docs
              ${api}/campaigns
              ${api}/campaigns/${chain.chainId}:${core}:0      (ERC-20 + variable-criteria V2, allow list with members)
              ${api}/campaigns/${chain.chainId}:${core}:1      (points + allow-list incentive, open allow list)
              ${api}/reward-kit/trending?sortBy=1h
              ${api}/explore/contracts?timePeriod=6h

  A claim of campaign 2 is made every 5 seconds; it shows in the API within ${confirmations + 2} blocks. Ctrl-C stops.
`);

let next = 100;
const claiming = setInterval(() => {
  const claimant = userAddress(next++);
  claimFor(chain, deployed.core, 2n, 0n, claimant).then(
    ({ blockNumber }) => say(`claimed by ${claimant} in block ${blockNumber}`),
    (error: unknown) => say(`claim failed: ${(error as Error).message}`),
  );
}, 5000);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  clearInterval(claiming);
  indexer.stop();
  void indexing
    .catch(() => undefined)
    .then(() => app.close())
    .then(() => statusServer.close())
    .then(() => database.close())
    .then(() => chain.stop())
    .then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
