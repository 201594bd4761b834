import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { type DatabaseHandle, openDatabase, queryRows } from '../src/db/client.js';
import { writePrices } from '../src/ingest/prices.js';
import { NATIVE_TOKEN_ADDRESS, type PriceQuote } from '../src/prices/source.js';
import { datasetUrl, ensureDataset, sampleParameters } from './dataset.js';
import { freePort, start, stop } from './processes.js';
import { scenarios } from './scenarios.js';

/**
 * `npm run bench:prices`: revaluing claims after a late price (the backfill target is in
 * `npm run bench:indexer`).
 *
 * The newest `--waiting` claims of a seeded data set that pay a token are moved into the last hour
 * and made to wait for a price (value 0, value_pending); then one write of late prices (each of
 * their assets and each chain's native token, quoted just before that hour) values them all, through
 * the write path (src/ingest/prices.ts), a chunk of claims a transaction. Measured twice: alone, and while reads
 * (the list, a campaign by id, trending 24h, in turn) drive the API server, whose throughput while
 * the revaluation runs is compared with its throughput just before, in the same run.
 *
 * Targets: the revaluation under 10 s, alone and under the reads; the reads keep at least 0.7 of
 * their throughput while it runs (medians of three rounds).
 */

const { values } = parseArgs({
  options: {
    campaigns: { type: 'string', default: '10000' },
    claims: { type: 'string', default: '200000' },
    waiting: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    reseed: { type: 'boolean', default: false },
  },
});
const waiting = Number(values.waiting);
const connections = Number(values.connections);
const size = { campaigns: Number(values.campaigns), claims: Number(values.claims) };
const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/campaigns_bench';
// Its own data set: this benchmark rewrites claims, which the read benchmark's data set must not see.
const url = datasetUrl(BASE_URL.replace(/\/([^/]*)$/, (_all, name: string) => `/${name || 'campaigns_bench'}_prices`), size);
const log = (line: string) => process.stdout.write(`${line}\n`);

await ensureDataset(url, size, values.reseed, log);
const database = await openDatabase({ DATABASE_URL: url, PGLITE_DATA_DIR: 'memory://', DB_POOL_MAX: 4, DB_STATEMENT_TIMEOUT_MS: 600_000, DB_CONNECT_TIMEOUT_MS: 5000, DB_QUERY_TIMEOUT_MS: 601_000 });

/** The claims that will wait, chosen once per data set. */
await database.db.execute(sql.raw(`DROP TABLE IF EXISTS bench_waiting_claims`));
await database.db.execute(
  sql`CREATE TABLE bench_waiting_claims AS
        SELECT c.id, row_number() OVER (ORDER BY c.claimed_at DESC, c.id) AS rank
          FROM claims AS c
          JOIN incentives AS i ON i.campaign_key = c.campaign_key AND i.position = c.incentive_position
         WHERE i.asset_address IS NOT NULL
         ORDER BY c.claimed_at DESC, c.id
         LIMIT ${waiting}`,
);

/** The chosen claims in the last hour, waiting; no late price in the history. */
async function makeThemWait(handle: DatabaseHandle): Promise<Date> {
  await handle.db.execute(sql`DELETE FROM token_prices WHERE source = 'bench'`);
  await handle.db.execute(
    sql`UPDATE claims AS c
           SET claimed_at = now() - (w.rank::float8 / ${waiting}) * interval '1 hour', usd_value = 0, eth_value_wei = 0, value_pending = true
          FROM bench_waiting_claims AS w WHERE c.id = w.id`,
  );
  // The rewrite leaves dead rows that autovacuum would clean up in the middle of a measurement.
  await handle.db.execute(sql`VACUUM (ANALYZE) claims`);
  const [row] = await queryRows<{ earliest: Date }>(handle.db, sql`SELECT min(claimed_at) AS earliest FROM claims WHERE value_pending`);
  return new Date(row!.earliest);
}

/** The late prices: each waiting claim's asset, and each chain's native token, at the price the token has now. */
async function latePrices(handle: DatabaseHandle, at: Date): Promise<PriceQuote[]> {
  const rows = await queryRows<{ chain_id: number; address: string; price: string }>(
    handle.db,
    sql`SELECT DISTINCT c.chain_id, i.asset_address AS address, coalesce(t.price_usd, 1)::text AS price
          FROM claims AS c
          JOIN incentives AS i ON i.campaign_key = c.campaign_key AND i.position = c.incentive_position
          LEFT JOIN tokens AS t ON t.chain_id = c.chain_id AND t.address = i.asset_address
         WHERE c.value_pending
        UNION
        SELECT DISTINCT c.chain_id, ${NATIVE_TOKEN_ADDRESS}, '3000' FROM claims AS c WHERE c.value_pending`,
  );
  return rows.map((row) => ({ chainId: row.chain_id, address: row.address, priceUsd: row.price, at, source: 'bench' }));
}

async function revalue(): Promise<{ seconds: number; valued: number }> {
  const earliest = await makeThemWait(database);
  const quotes = await latePrices(database, new Date(earliest.getTime() - 60_000));
  const started = performance.now();
  const result = await writePrices(database, quotes);
  const seconds = (performance.now() - started) / 1000;
  if (result.refused.length > 0) throw new Error(`late prices refused: ${JSON.stringify(result.refused.slice(0, 3))}`);
  return { seconds, valued: result.valued };
}

log(`\nrevaluing ${waiting.toLocaleString('en-US')} waiting claims, alone...`);
const alone = await revalue();
log(`  ${alone.valued.toLocaleString('en-US')} claims valued in ${alone.seconds.toFixed(2)} s`);

const port = await freePort();
const server = await start(
  process.execPath,
  ['dist/server.js'],
  { DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', MIGRATE_ON_START: 'false', RESPONSE_CACHE_TTL_MS: '0', RATE_LIMIT_MAX: '0' },
  `http://127.0.0.1:${port}/health/ready`,
);
try {
  const parameters = await sampleParameters(url);
  const reads = scenarios(parameters).filter((scenario) => ['list default', 'detail by random id', 'trending 24h'].includes(scenario.name));
  let next = 0;
  const load = (durationSeconds: number) => {
    let instance: autocannon.Instance | undefined;
    const done = new Promise<autocannon.Result>((resolve, reject) => {
      instance = autocannon(
        {
          url: `http://127.0.0.1:${port}`,
          connections,
          duration: durationSeconds,
          requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: reads[next++ % reads.length]!.path() }) }],
        },
        (error, result) => (error ? reject(error as Error) : resolve(result)),
      );
    });
    return { stop: () => instance?.stop(), done };
  };
  const throughput = (result: autocannon.Result) => (result['2xx'] + result.non2xx) / result.duration;

  await load(3).done; // warm-up
  // Three rounds; the median of each figure (one round moves with what the machine does meanwhile).
  const rounds: { before: number; during: number; seconds: number; valued: number; non2xx: number; errors: number }[] = [];
  for (let round = 0; round < 3; round++) {
    const earliest = await makeThemWait(database);
    const quotes = await latePrices(database, new Date(earliest.getTime() - 60_000));
    const before = throughput(await load(Number(values.duration)).done);
    const during = load(600);
    const started = performance.now();
    const result = await writePrices(database, quotes);
    const seconds = (performance.now() - started) / 1000;
    during.stop();
    const duringResult = await during.done;
    rounds.push({ before, during: throughput(duringResult), seconds, valued: result.valued, non2xx: duringResult.non2xx, errors: duringResult.errors });
    log(`  round ${round + 1}: ${result.valued} claims in ${seconds.toFixed(2)} s under reads; reads ${Math.round(before)} -> ${Math.round(throughput(duringResult))} req/s`);
  }
  const median = (pick: (round: (typeof rounds)[number]) => number) => rounds.map(pick).sort((a, b) => a - b)[1]!;
  const ratio = median((round) => round.during / round.before);
  const loadedSeconds = median((round) => round.seconds);

  const target = (met: boolean) => (met ? 'met' : 'NOT met');
  log(
    `\nrevaluation: ${rounds[0]!.valued.toLocaleString('en-US')} claims in ${alone.seconds.toFixed(2)} s alone, ${loadedSeconds.toFixed(2)} s under reads (median of 3) ` +
      `(target < 10 s: ${target(alone.seconds < 10 && loadedSeconds < 10)})\n` +
      `reads (list, detail, trending 24h in turn, ${connections} connections) while revaluing, against just before: ${ratio.toFixed(2)} (median of 3; target >= 0.7: ${target(ratio >= 0.7)}); ` +
      `non-2xx: ${rounds.reduce((sum, round) => sum + round.non2xx, 0)}, errors: ${rounds.reduce((sum, round) => sum + round.errors, 0)}`,
  );
  if (alone.seconds >= 10 || loadedSeconds >= 10 || ratio < 0.7) process.exitCode = 1;
} finally {
  await stop(server);
  await database.close();
}
