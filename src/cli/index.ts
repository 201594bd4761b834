import { DEFAULT_CORES } from '../chain/deployments.js';
import { type Config, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { startStatusServer } from '../indexer/http.js';
import { createIndexer } from '../indexer/indexer.js';
import { createBackfillProgress } from '../indexer/progress-bar.js';
import { IndexerStatus } from '../indexer/status.js';
import { type ChainTarget, parseTargets } from '../chain/targets.js';
import { createServerLogger } from '../logger.js';
import { createPriceSources, priceJobLock, priceJobSettings } from '../price-job/from-config.js';
import { createPriceJob, roundsUntilDone } from '../price-job/job.js';
import { PriceMetrics } from '../price-job/metrics.js';
import { parseCommandLine, runCommand, UsageError } from './command-line.js';

const USAGE = `Usage: npm run index -- [--rpc-url URL --chain-id N [--core ADDRESS] [--from-block N]] [--confirmations N] [--once] [--check]
       (in the image: node dist/cli/index.js ...)

Follows BoostCore deployments into DATABASE_URL (or the embedded database) through src/ingest/, and
runs the price job beside it (PRICE_SOURCES; none turns it off; when another process runs the job
on the same database, npm run prices or another indexer, this one's rounds stand by).
Without flags it follows what the settings name (CHAIN_RPC_URLS, INDEXER_CORES; docs/operations.md,
"Data from the chain"). With --rpc-url and --chain-id it follows one core: --core (default: the protocol's deployment
on that chain) from --from-block (default: its deployment block; only used when the core has no
checkpoint yet). --confirmations overrides INDEXER_CONFIRMATIONS. --once indexes up to the head minus
the confirmations, asks the price sources for what the claims need, then exits 0. --check reads the
settings and flags, says what would be followed and exits 0, or exits as a run would on what is
wrong (2 with nothing to follow, 1 for an invalid setting), opening no database and no connection.`;

function targetsFromFlags(values: Record<string, string | boolean | undefined>, config: Config): ChainTarget[] {
  const rpcUrl = values['rpc-url'] as string | undefined;
  const chainText = values['chain-id'] as string | undefined;
  if (rpcUrl === undefined && chainText === undefined && values.core === undefined && values['from-block'] === undefined) {
    const { targets } = parseTargets(config.CHAIN_RPC_URLS, config.INDEXER_CORES);
    if (targets.length === 0) throw new UsageError('nothing to follow: set CHAIN_RPC_URLS (and INDEXER_CORES) or give --rpc-url and --chain-id');
    return targets;
  }
  if (!rpcUrl || !/^https?:\/\//.test(rpcUrl)) throw new UsageError('--rpc-url must be an http(s) URL');
  if (!chainText || !/^[0-9]{1,10}$/.test(chainText)) throw new UsageError('--chain-id must be a chain id (a positive integer)');
  const chainId = Number(chainText);
  const deployment = DEFAULT_CORES.find((core) => core.chainId === chainId);
  const core = (values.core as string | undefined) ?? deployment?.address;
  if (!core || !/^0x[0-9a-fA-F]{40}$/.test(core)) throw new UsageError(`--core must be an address${deployment ? '' : ` (chain ${chainId} has no known deployment)`}`);
  const fromText = values['from-block'] as string | undefined;
  if (fromText !== undefined && !/^[0-9]{1,15}$/.test(fromText)) throw new UsageError('--from-block must be a block number');
  const startBlock = fromText !== undefined ? BigInt(fromText) : deployment && deployment.address === core.toLowerCase() ? deployment.startBlock : 0n;
  return [{ chainId, rpcUrl, cores: [{ address: core.toLowerCase(), startBlock }] }];
}

async function main(): Promise<void> {
  const parsed = parseCommandLine(USAGE, {
    options: {
      'rpc-url': { type: 'string' },
      'chain-id': { type: 'string' },
      core: { type: 'string' },
      'from-block': { type: 'string' },
      confirmations: { type: 'string' },
      once: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
    },
  });
  if (!parsed) return;
  const { values } = parsed;
  const config = loadConfig();
  const targets = targetsFromFlags(values, config);
  if (values.confirmations !== undefined && !/^[0-9]{1,5}$/.test(values.confirmations)) throw new UsageError('--confirmations must be a number of blocks');
  const confirmations = values.confirmations !== undefined ? Number(values.confirmations) : config.INDEXER_CONFIRMATIONS;
  if (values.check) {
    const cores = targets.map((target) => `chain ${target.chainId}: ${target.cores.map((core) => `${core.address}@${core.startBlock}`).join(', ')}`);
    console.log(`indexer settings ok: follows ${cores.join('; ')}; ${confirmations} confirmations; price sources: ${config.PRICE_SOURCES}`);
    return;
  }
  const logger = await createServerLogger(config);
  const database = await openDatabase({ ...config, DB_STATEMENT_TIMEOUT_MS: 600_000, DB_QUERY_TIMEOUT_MS: 601_000, DB_POOL_MAX: 4 }, logger);
  const status = new IndexerStatus(config.INDEXER_LAG_BUDGET_S);
  const bar = createBackfillProgress(logger);
  const expectedCores = targets.reduce((sum, target) => sum + target.cores.length, 0);
  const statusServer = config.INDEXER_METRICS_PORT === 0 ? null : await startStatusServer(status, expectedCores, config.HOST, config.INDEXER_METRICS_PORT);
  if (statusServer) logger.info(`indexer metrics at ${statusServer.url}/metrics, readiness at ${statusServer.url}/health/ready`);
  const priceSources = createPriceSources(config, logger, new Map(targets.map((target) => [target.chainId, target.rpcUrl])));
  const priceLock = priceSources.length === 0 ? null : priceJobLock(config, logger);
  const prices =
    priceSources.length === 0
      ? null
      : createPriceJob({
          database,
          sources: priceSources,
          settings: priceJobSettings(config, targets.map((target) => target.chainId)),
          logger: logger.child({ component: 'prices' }),
          metrics: new PriceMetrics(status.registry),
          lock: priceLock ?? undefined,
        });
  const indexer = createIndexer(
    targets,
    database,
    {
      confirmations,
      blockRange: config.INDEXER_BLOCK_RANGE,
      pollMs: config.INDEXER_POLL_MS,
      reorgDepth: config.INDEXER_REORG_DEPTH,
      allowListEdits: config.INDEXER_ALLOW_LIST_EDITS,
      rpcTimeoutMs: config.INDEXER_RPC_TIMEOUT_MS,
    },
    logger,
    {
      onProgress: (progress) => {
        status.record(progress);
        bar.update(progress);
        if (progress.claims > 0) prices?.wake();
      },
      onRpcError: (chainId) => status.rpcError(chainId),
      beforeClaims: prices ? (chainId, needs) => prices.prepare(chainId, needs) : undefined,
    },
  );
  const stop = () => indexer.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    if (config.MIGRATE_ON_START) await database.migrate();
    logger.info(
      { targets: targets.map((target) => ({ chainId: target.chainId, cores: target.cores.map((core) => `${core.address}@${core.startBlock}`) })), confirmations, once: values.once },
      'indexer starting',
    );
    if (!values.once) prices?.start();
    await indexer.run({ once: values.once });
    bar.stop();
    if (values.once && prices) await roundsUntilDone(prices);
    logger.info({ cores: status.readiness(expectedCores).cores }, 'indexer stopped');
  } finally {
    bar.stop();
    await prices?.close();
    await priceLock?.close();
    await statusServer?.close();
    await database.close();
  }
}

runCommand(USAGE, 'index failed', main, { stack: true });
