import { collectDefaultMetrics, Registry } from 'prom-client';
import { registerBuildInfo } from '../build-info.js';
import { parseTargets } from '../chain/targets.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { createServerLogger } from '../logger.js';
import { createPriceSources, priceJobLock, priceJobSettings } from '../price-job/from-config.js';
import { createPriceJob, roundsUntilDone } from '../price-job/job.js';
import { PriceMetrics } from '../price-job/metrics.js';
import { serveStatus } from '../status-server.js';
import { CommandError, parseCommandLine, runCommand } from './command-line.js';

const USAGE = `Usage: npm run prices -- [--once] [--check]
       (in the image: node dist/cli/prices.js ...)

Runs the price job without the indexer, for a database filled by imports (docs/operations.md,
"Prices"): it keeps the price history of DATABASE_URL (or the embedded database) filled from
PRICE_SOURCES, every PRICE_POLL_MS the current price of every token in the database, and the prices
of the hours in which claims wait for one. One process per database runs the job's rounds: while
another (an indexer, or another npm run prices) runs them, this one stands by and takes over when
that one stops. Chainlink feeds are read through CHAIN_RPC_URLS. Serves GET /metrics and
GET /health/ready on HOST:PRICE_METRICS_PORT (0 = none); stops on SIGTERM or SIGINT, exit code 0.
--once runs rounds until no hour of waiting claims is left to ask about, or a source fails, then
exits 0. --check reads the settings, says what would run and exits 0, or 1 with what is wrong,
opening no database and no connection.`;

async function main(): Promise<void> {
  const parsed = parseCommandLine(USAGE, {
    options: {
      once: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
    },
  });
  if (!parsed) return;
  const { values } = parsed;
  const config = loadConfig();
  if (config.PRICE_SOURCES === 'none') throw new CommandError('nothing to run: PRICE_SOURCES=none names no price source (set defillama, chainlink or both)');
  const chains = parseTargets(config.CHAIN_RPC_URLS, config.INDEXER_CORES).targets;
  if (values.check) {
    console.log(`price job settings ok: sources ${config.PRICE_SOURCES}, current prices every ${config.PRICE_POLL_MS} ms${chains.length > 0 ? `, native tokens of chains ${chains.map((chain) => chain.chainId).join(', ')}` : ''}`);
    return;
  }

  const logger = await createServerLogger(config);
  // A price write values the claims that waited for it, 10,000 a transaction: longer than an API query.
  const database = await openDatabase({ ...config, DB_STATEMENT_TIMEOUT_MS: 600_000, DB_QUERY_TIMEOUT_MS: 601_000, DB_POOL_MAX: 2 }, logger);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerBuildInfo(registry);
  const lock = priceJobLock(config, logger);
  const job = createPriceJob({
    database,
    sources: createPriceSources(config, logger, new Map(chains.map((chain) => [chain.chainId, chain.rpcUrl]))),
    settings: priceJobSettings(config, chains.map((chain) => chain.chainId)),
    logger: logger.child({ component: 'prices' }),
    metrics: new PriceMetrics(registry),
    lock: lock ?? undefined,
  });
  const statusServer =
    config.PRICE_METRICS_PORT === 0
      ? null
      : await serveStatus(
          {
            registry,
            readiness: () => {
              const { phase, lastRoundAt } = job.state();
              return { ready: phase === 'running' || phase === 'standing-by', body: { status: phase, lastRoundAt } };
            },
          },
          config.HOST,
          config.PRICE_METRICS_PORT,
        );
  if (statusServer) logger.info(`price job metrics at ${statusServer.url}/metrics, readiness at ${statusServer.url}/health/ready`);
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    if (config.MIGRATE_ON_START) await database.migrate();
    if (values.once) {
      await roundsUntilDone(job);
    } else {
      job.start();
      await stopped;
    }
    logger.info('price job stopped');
  } finally {
    await job.close();
    await lock?.close();
    await statusServer?.close();
    await database.close();
  }
}

runCommand(USAGE, 'prices failed', main, { stack: true });
