import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type DatabaseHandle, openDatabase, queryRows } from '../src/db/client.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { memorySource } from '../src/ingest/memory-source.js';
import { ingest } from '../src/ingest/write.js';
import type { UpsertRecord } from '../src/ingest/records.js';
import { createPriceJob, type PriceJob } from '../src/price-job/job.js';
import { createDefiLlamaSource, DEFILLAMA_CHAINS } from '../src/prices/defillama.js';
import { startDefiLlamaStandIn } from '../scripts/chain/defillama-stand-in.js';
import { ASSET, claimFor, claimMany, createBoost, deploy, deployComponents, type LocalChain, startAnvil, userAddress } from '../scripts/chain/local-chain.js';

/**
 * `npm run bench:indexer`: the indexer's two targets on a local anvil.
 *
 * 1. Backfill: N claims (claimMany, 400 a transaction) indexed from block 0 into an empty database,
 *    in claims per second; beside it, as the baseline of the same run, the same claims written by
 *    ingest() alone (the write path without the chain: what the indexer adds is reading and decoding).
 *    Then the backfill with its prices: the same indexing with the price job running beside it
 *    against a local stand-in of DefiLlama's coins API, until every claim is valued, against the
 *    target of 0.9 of the rate without prices.
 * 2. Following the head: anvil mines a block every --block-time seconds; a claim is made, and the
 *    time from its block to the API serving it (GET /campaigns/{id}, totalClaims) is measured in
 *    block times, against the target of confirmations + 2.
 *
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a scratch
 * database is created and dropped).
 */

const { values } = parseArgs({
  options: {
    claims: { type: 'string', default: '20000' },
    'block-time': { type: 'string', default: '1' },
    confirmations: { type: 'string', default: '2' },
    samples: { type: 'string', default: '10' },
  },
});
const claimCount = Number(values.claims);
const blockTime = Number(values['block-time']);
const confirmations = Number(values.confirmations);
const samples = Number(values.samples);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' });

async function scratchDatabase(): Promise<{ database: DatabaseHandle; drop: () => Promise<void> }> {
  const name = `indexer_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ DATABASE_URL: url.toString(), PGLITE_DATA_DIR: 'memory://', DB_POOL_MAX: 4, DB_STATEMENT_TIMEOUT_MS: 600_000, DB_CONNECT_TIMEOUT_MS: 5000, DB_QUERY_TIMEOUT_MS: 601_000 });
  await database.migrate();
  return {
    database,
    drop: async () => {
      await database.close();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function write(database: DatabaseHandle, records: UpsertRecord[]) {
  await ingest(database, memorySource(records), { derived: 'live' });
}

const token = (chainId: number, priceUsd?: string): UpsertRecord => ({
  kind: 'token',
  chainId,
  address: ASSET,
  id: '11111111-1111-4111-8111-111111111111',
  name: 'USD Coin',
  symbol: 'USDC',
  decimals: 18,
  imageUri: 'https://example.com/usdc.png',
  isWhitelisted: true,
  ...(priceUsd ? { priceUsd } : {}),
});

/** Indexes the chain from block 0 to its head into `database`, in seconds. */
async function indexAll(chain: LocalChain, core: string, database: DatabaseHandle, job?: PriceJob): Promise<number> {
  const started = performance.now();
  await createIndexer(
    [{ chainId: chain.chainId, rpcUrl: chain.url, cores: [{ address: core, startBlock: 0n }] }],
    database,
    { confirmations: 0, blockRange: 2000, pollMs: 100, reorgDepth: 256, rpcTimeoutMs: 30_000 },
    logger,
    // As npm run index does: a range's claims get their prices first, and wake the price job.
    job ? { beforeClaims: (chainId, needs) => job.prepare(chainId, needs), onProgress: (progress) => (progress.claims > 0 ? job.wake() : undefined) } : {},
  ).run({ once: true });
  return (performance.now() - started) / 1000;
}

/**
 * The backfill with the price job beside it, from an empty database to every claim valued, in
 * seconds (and the indexing alone). The stand-in prices the asset and ether from before the claims'
 * time (the local chain is priced as Base), so the claims are valued with historical prices.
 */
async function indexWithPrices(chain: LocalChain, core: string, database: DatabaseHandle): Promise<{ indexed: number; valued: number }> {
  const standIn = await startDefiLlamaStandIn();
  const first = Number((await chain.public.getBlock({ blockNumber: 0n })).timestamp);
  const last = Number((await chain.public.getBlock()).timestamp);
  const price = (at: number) => {
    standIn.setPrice(`base:${ASSET}`, { at, price: 1, decimals: 18, symbol: 'USDC' });
    standIn.setPrice('coingecko:ethereum', { at, price: 3000, symbol: 'ETH' });
  };
  // Every five minutes until ten minutes before the first block, and a current price a minute after
  // the last: no claim is valued by the current price as it is written, each waits for its hour's.
  for (let at = Math.floor(first / 300) * 300 - 3 * 3600; at < first - 600; at += 300) price(at);
  price(last + 60);
  const job = createPriceJob({
    database,
    sources: [createDefiLlamaSource({ baseUrl: standIn.url, timeoutMs: 10_000, maxTokensPerRequest: 80, logger, chains: { [chain.chainId]: DEFILLAMA_CHAINS[8453]! } })],
    settings: { pollMs: 1000, hoursPerRound: 20, claimsPerLook: 20_000, chains: [chain.chainId], baseBackoffMs: 1000, maxBackoffMs: 60_000, maxRetryAfterMs: 600_000, retryHoursAfterMs: 3_600_000 },
    logger,
  });
  try {
    const started = performance.now();
    job.start();
    const indexed = await indexAll(chain, core, database, job);
    // Done when no claim waits (the job's next round values the last ones).
    for (;;) {
      const [row] = await queryRows<{ waiting: number }>(database.db, sql`SELECT count(*)::int AS waiting FROM claims WHERE value_pending`);
      if (row?.waiting === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { indexed, valued: (performance.now() - started) / 1000 };
  } finally {
    await job.close();
    await standIn.close();
  }
}

async function backfill() {
  const chain = await startAnvil();
  try {
    const deployed = await deployComponents(chain, []);
    const incentive = await deploy(chain, 'TestERC20Incentive', [ASSET, 0, 10n ** 18n, BigInt(claimCount) * 2n]);
    await createBoost(chain, deployed.core, {
      owner: chain.account,
      budget: chain.account,
      validator: deployed.core,
      action: deployed.action,
      allowList: { address: deployed.openAllowList, owner: '0x0000000000000000000000000000000000000000', members: [] },
      incentives: [incentive],
    });
    process.stdout.write(`making ${claimCount.toLocaleString('en-US')} claims on anvil...\n`);
    for (let made = 0; made < claimCount; made += 400) {
      const size = Math.min(400, claimCount - made);
      await claimMany(chain, deployed.core, 0n, 0n, Array.from({ length: size }, (_, n) => userAddress(made + n)));
    }

    const indexed = await scratchDatabase();
    const baseline = await scratchDatabase();
    const priced = await scratchDatabase();
    try {
      await write(indexed.database, [token(chain.chainId, '1.000000')]);
      const indexerSeconds = await indexAll(chain, deployed.core, indexed.database);

      // The baseline: the same records (exported from the indexed database) through ingest() alone.
      const { exportRecords } = await import('../src/ingest/export.js');
      const records: UpsertRecord[] = [];
      await indexed.database.bulkTransaction(async (session) => {
        for await (const record of exportRecords((query) => session.query(query))) records.push(record);
      });
      const claims = records.filter((record) => record.kind === 'claim');
      await write(baseline.database, records.filter((record) => record.kind !== 'claim'));
      const baselineStarted = performance.now();
      for (let at = 0; at < claims.length; at += 20_000) await write(baseline.database, claims.slice(at, at + 20_000));
      const baselineSeconds = (performance.now() - baselineStarted) / 1000;
      const rate = claims.length / indexerSeconds;
      process.stdout.write(
        `\nbackfill: ${claims.length.toLocaleString('en-US')} claims indexed in ${indexerSeconds.toFixed(2)} s = ${Math.round(rate).toLocaleString('en-US')} claims/s ` +
          `(target >= 2,000: ${rate >= 2000 ? 'met' : 'NOT met'})\n` +
          `baseline: the same claims through ingest() alone in ${baselineSeconds.toFixed(2)} s = ${Math.round(claims.length / baselineSeconds).toLocaleString('en-US')} claims/s; ` +
          `indexer/baseline time ${(indexerSeconds / baselineSeconds).toFixed(2)}x\n`,
      );

      // With prices: no imported price; the price job values the claims.
      await write(priced.database, [token(chain.chainId)]);
      const withPrices = await indexWithPrices(chain, deployed.core, priced.database);
      const pricedSeconds = withPrices.valued;
      const [valued] = await queryRows<{ valued: number; usd: string }>(
        priced.database.db,
        sql`SELECT count(*) FILTER (WHERE NOT value_pending AND usd_value > 0)::int AS valued, sum(usd_value)::text AS usd FROM claims`,
      );
      const pricedRate = claims.length / pricedSeconds;
      const ratio = pricedRate / rate;
      process.stdout.write(
        `backfill with the price job beside it: indexed in ${withPrices.indexed.toFixed(2)} s, ${(indexerSeconds / withPrices.indexed).toFixed(2)} of the rate without prices; ` +
          `until every claim is valued: ${pricedSeconds.toFixed(2)} s = ` +
          `${Math.round(pricedRate).toLocaleString('en-US')} claims/s, ${ratio.toFixed(2)} of the rate without prices ` +
          `(target >= 0.9: ${ratio >= 0.9 ? 'met' : 'NOT met'}); ${valued!.valued.toLocaleString('en-US')} claims valued, ${valued!.usd} USD\n`,
      );
    } finally {
      await indexed.drop();
      await baseline.drop();
      await priced.drop();
    }
  } finally {
    await chain.stop();
  }
}

async function followHead() {
  const chain = await startAnvil();
  const scratch = await scratchDatabase();
  try {
    const deployed = await deployComponents(chain, []);
    await createBoost(chain, deployed.core, {
      owner: chain.account,
      budget: chain.account,
      validator: deployed.core,
      action: deployed.action,
      allowList: { address: deployed.openAllowList, owner: '0x0000000000000000000000000000000000000000', members: [] },
      incentives: [deployed.erc20],
    });
    await chain.public.request({ method: 'evm_setIntervalMining', params: [blockTime] } as never);
    const config = loadConfig({ LOG_LEVEL: 'warn', RESPONSE_CACHE_TTL_MS: '0', RATE_LIMIT_MAX: '0', PGLITE_DATA_DIR: 'memory://' });
    // Each range's write transaction, in ms: a range of the claim's block, and a range of blocks without logs.
    const writes = { withClaims: [] as number[], empty: [] as number[] };
    const indexer = createIndexer(
      [{ chainId: chain.chainId, rpcUrl: chain.url, cores: [{ address: deployed.core, startBlock: 0n }] }],
      scratch.database,
      { confirmations, blockRange: 2000, pollMs: config.INDEXER_POLL_MS, reorgDepth: 256, rpcTimeoutMs: 10_000 },
      logger,
      {
        onProgress: (p) => {
          if (p.writeMs !== undefined) (p.claims > 0 ? writes.withClaims : writes.empty).push(p.writeMs);
          if (process.env.BENCH_TRACE) process.stdout.write(`${(performance.now() / 1000).toFixed(2)} head ${p.headBlock} indexed ${p.indexedBlock} claims ${p.claims}\n`);
        },
      },
    );
    const running = indexer.run();
    const app = await buildApp(config, { database: scratch.database, logger });
    await app.ready();
    const id = `${chain.chainId}:${deployed.core.toLowerCase()}:0`;
    const served = async () => {
      const response = await app.inject({ url: `/campaigns/${id}` });
      if (response.statusCode !== 200) {
        if (process.env.BENCH_TRACE) process.stdout.write(`${(performance.now() / 1000).toFixed(2)} API ${response.statusCode} ${response.body.slice(0, 200)}\n`);
        return null;
      }
      return Number(response.json<{ incentives: { totalClaims?: string }[] }>().incentives[0]?.totalClaims ?? 0);
    };
    // The campaign is indexed first: a sample measures one claim, not the start.
    while ((await app.inject({ url: `/campaigns/${id}` })).statusCode !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    const latencies: number[] = [];
    for (let sample = 0; sample < samples; sample++) {
      const before = await served();
      await claimFor(chain, deployed.core, 0n, 0n, userAddress(500_000 + sample));
      // The receipt is polled every 20 ms: its arrival is when the block was mined, to 20 ms. (Block
      // timestamps are no clock here: anvil gave the set-up's blocks one second each.)
      const mined = performance.now();
      if (process.env.BENCH_TRACE) process.stdout.write(`${(mined / 1000).toFixed(2)} claim mined\n`);
      for (;;) {
        const count = await served();
        if (count !== null && before !== null && count > before) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      latencies.push((performance.now() - mined) / 1000);
    }
    indexer.stop();
    await running;
    await app.close();
    process.stdout.write(`latencies (s): ${latencies.map((latency) => latency.toFixed(2)).join(' ')}\n`);
    latencies.sort((a, b) => a - b);
    const inBlocks = (seconds: number) => (seconds / blockTime).toFixed(2);
    const target = confirmations + 2;
    process.stdout.write(
      `\nfollowing the head (block time ${blockTime} s, ${confirmations} confirmations, target ${target} block times): ` +
        `claim served after median ${inBlocks(latencies[Math.floor(latencies.length / 2)]!)} block times, worst ${inBlocks(latencies.at(-1)!)} ` +
        `(${latencies.at(-1)! <= target * blockTime ? 'met' : 'NOT met'})\n`,
    );
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    process.stdout.write(
      `a range's write transaction while following the head: median ${median(writes.withClaims).toFixed(1)} ms with a claim ` +
        `(${writes.withClaims.length} ranges), ${median(writes.empty).toFixed(1)} ms without logs (${writes.empty.length} ranges)\n`,
    );
  } finally {
    await scratch.drop();
    await chain.stop();
  }
}

await backfill();
await followHead();
