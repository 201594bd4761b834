import { mkdir, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { datasetUrl, type DatasetSize, ensureDataset, sampleParameters } from './dataset.js';
import { startClaimWriter } from './claim-writer.js';
import { drive, type LoadOptions, peakRss, processCpuMs } from './load.js';
import { type BenchRow, checkTargets, printTable } from './report.js';
import { choosePlacement, onServerCpus, pinThisProcess, unpinThisProcess } from './placement.js';
import { freePort, start, stop } from './processes.js';
import { COMPRESSED, type Scenario, scenarios } from './scenarios.js';

/**
 * `npm run bench`: the service's throughput and latency per scenario against the framework ceiling
 * (the same bytes served from memory by bare Fastify), measured in the same run. See bench/README.md.
 */
const USAGE = `Usage: npm run bench -- [--campaigns N] [--claims N] [--duration S] [--connections N]
                       [--cache on|off|both] [--scale] [--only name,...] [--reseed] [--server-cpus LIST]
                       [--writes CLAIMS_PER_SECOND] [--write-rounds N] [--pin auto|off]`;

const { values } = parseArgs({
  options: {
    campaigns: { type: 'string', default: '100000' },
    claims: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    cache: { type: 'string', default: 'both' },
    scale: { type: 'boolean', default: false },
    only: { type: 'string' },
    reseed: { type: 'boolean', default: false },
    'server-cpus': { type: 'string' },
    writes: { type: 'string', default: '200' },
    'write-rounds': { type: 'string', default: '3' },
    pin: { type: 'string', default: 'auto' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const BASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/campaigns_bench';
const load: LoadOptions = { connections: Number(values.connections), durationSeconds: Number(values.duration) };
const main: DatasetSize = { campaigns: Number(values.campaigns), claims: Number(values.claims) };
const sizes = values.scale ? [{ campaigns: main.campaigns / 10, claims: main.claims / 10 }, main] : [main];
const cacheModes = values.cache === 'both' ? ['off', 'on'] : [values.cache ?? 'off'];
const only = values.only?.split(',').map((name) => name.trim());
const log = (line: string) => process.stderr.write(`${line}\n`);
/** Where the load generator and the servers run (bench/placement.ts); --server-cpus pins only the servers. */
const placement = choosePlacement(values.pin, values['server-cpus']);
const pinned = (command: string, args: string[]): [string, string[]] => onServerCpus(placement, command, args);
log(`placement: ${placement.description}`);

/** The scenarios with a straightforward counterpart (see baseline-server.ts), and its path. */
const BASELINES: Record<string, string> = {
  'list default': '/baseline/list',
  'list pageSize=100': '/baseline/list100',
  'trending 24h': '/baseline/trending',
};

/**
 * The scenarios measured again while claims stream in (bench/claim-writer.ts), at `--writes` single-claim
 * transactions per second (0: none), with the response cache off.
 */
// The reward-kit ones are measured too (with no live-write target: their targets in bench/report.ts are for data
// without writes) because a claim
// to a campaign they show makes them build its entry again (docs/design.md, "Trending and reward-kit entries").
const LIVE_SCENARIOS = ['trending 24h', 'contracts most-completions', 'list default', 'reward-kit campaigns', 'reward-kit profile', 'leaderboard 7d'];
const writesPerSecond = Number(values.writes);
/**
 * Pairs (without writes, then with them) per live scenario; the row is the pair with the median
 * ratio: one pair alone moves by several hundredths between runs minutes apart.
 */
const writeRounds = Number(values['write-rounds']);
if (!Number.isInteger(writeRounds) || writeRounds < 1) throw new Error(`--write-rounds must be a whole number of at least 1, not ${values['write-rounds']}`);

const rows: BenchRow[] = [];
for (const size of sizes) {
  const url = datasetUrl(BASE_URL, size);
  // Seeding runs in a child process of its own, on every core; the measurements on the placement's.
  if (placement.loadCpus !== undefined) unpinThisProcess();
  await ensureDataset(url, size, values.reseed, log);
  if (placement.loadCpus !== undefined) pinThisProcess(placement.loadCpus);
  const parameters = await sampleParameters(url);
  const selected = scenarios(parameters).filter((scenario) => !only || only.includes(scenario.name));
  for (const cache of cacheModes) {
    // Only the main dataset is measured with the cache on: the scale curve is about the database.
    if (cache === 'on' && size !== main) continue;
    log(`\n${size.campaigns} campaigns, response cache ${cache}`);
    rows.push(...(await measure(url, size, cache === 'on', selected)));
  }
}

printTable(rows);
const failures = checkTargets(rows, main);
const resultsDir = join('bench', 'results');
await mkdir(resultsDir, { recursive: true });
const file = join(resultsDir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(file, `${JSON.stringify({ load, sizes, placement: placement.description, writeRounds, rows, failures }, null, 2)}\n`);
log(`\nresults written to ${file}`);
process.exitCode = failures.length > 0 ? 1 : 0;

async function measure(url: string, size: DatasetSize, cacheOn: boolean, selected: Scenario[]): Promise<BenchRow[]> {
  const port = await freePort();
  const server = await start(...pinned(process.execPath, ['dist/server.js']), {
    DATABASE_URL: url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    MIGRATE_ON_START: 'false',
    RESPONSE_CACHE_TTL_MS: cacheOn ? '1000' : '0',
    // The benchmark is one client hammering the server: the per-client budget would only measure itself.
    RATE_LIMIT_MAX: '0',
  }, `http://127.0.0.1:${port}/health/ready`);
  const baseUrl = `http://127.0.0.1:${port}`;
  const bodies: CapturedBody[] = [];
  try {
    // Warm up: the first request of each scenario builds what later ones reuse (snapshots, plans).
    for (const scenario of selected) {
      const answer = await capture(baseUrl + scenario.path(), scenario.headers);
      if (answer.status !== 200) throw new Error(`${scenario.name}: ${answer.status} ${answer.body.toString('utf8')}`);
      if (scenario.name.endsWith(COMPRESSED) && answer.encoding === undefined) {
        log(`  ${scenario.name}: the warm-up answer came uncompressed (${answer.body.length} bytes, below COMPRESSION_MIN_BYTES?)`);
      }
      bodies.push({ body: answer.body.toString('base64'), encoding: answer.encoding });
    }
    const results: BenchRow[] = [];
    for (const [index, scenario] of selected.entries()) {
      const pid = server.pid!;
      const { loads, value } = await countingLoads(baseUrl, async () => {
        const cpuBefore = await processCpuMs(pid);
        const measured = await peakRss(pid, () => drive(baseUrl, scenario, load));
        return { ...measured, cpuMs: (await processCpuMs(pid)) - cpuBefore };
      });
      const { result, peakRssMb, cpuMs } = value;
      const serverCpuMsPerAnswer = Math.round((1000 * cpuMs) / Math.max(1, result.responses)) / 1000;
      const contentEncoding = bodies[index]!.encoding;
      results.push({
        scenario: scenario.name,
        campaigns: size.campaigns,
        cache: cacheOn ? 'on' : 'off',
        ...result,
        peakRssMb,
        serverCpuMsPerAnswer,
        ...(contentEncoding ? { contentEncoding } : {}),
        index,
        ...loads,
      });
      log(`  ${scenario.name}: ${result.requestsPerSecond} req/s, p99 ${result.p99Ms} ms, ${serverCpuMsPerAnswer} ms CPU per answer${describeLoads(loads)}`);
    }
    withUncompressed(results);
    const live = cacheOn || writesPerSecond === 0 ? [] : await withWrites(server.pid!, baseUrl, url, results, selected);
    await stop(server);
    await withCeiling(results, selected, bodies);
    if (!cacheOn) await withBaseline(results, url);
    return [...results, ...live];
  } finally {
    await stop(server);
  }
}

/**
 * The live scenarios again, each while the claim writer inserts `writesPerSecond` claims per second:
 * rows named `<scenario> +writes`, with the ratio to the same scenario without writes, measured right
 * before it, `writeRounds` pairs in turn. The main pass's figure is minutes older (other scenarios,
 * the writes of earlier live scenarios and the vacuum they cause lie in between), and this machine's
 * throughput drifts by 10-40% over minutes; side by side, the ratio shows what the writes cost rather
 * than that drift. The row is the pair with the median ratio; its p99 and peak RSS are the highest of
 * every pair's, and its writes count every pair's claims and failures.
 */
async function withWrites(pid: number, baseUrl: string, url: string, results: BenchRow[], selected: Scenario[]): Promise<BenchRow[]> {
  const live: BenchRow[] = [];
  for (const row of results.filter((result) => LIVE_SCENARIOS.includes(result.scenario))) {
    const scenario = selected[row.index]!;
    const pairs = [];
    for (let round = 1; round <= writeRounds; round++) {
      const withoutWrites = await drive(baseUrl, scenario, load);
      const writer = await startClaimWriter(url, writesPerSecond);
      const { loads, value } = await countingLoads(baseUrl, () => peakRss(pid, () => drive(baseUrl, scenario, load)));
      const { result, peakRssMb } = value;
      const writes = await writer.stop();
      const ratio = Math.round((100 * result.requestsPerSecond) / Math.max(1, withoutWrites.requestsPerSecond)) / 100;
      pairs.push({ withoutWrites, result, peakRssMb, writes, ratio, loads: loads.claimVolumeLoads ?? 0 });
      log(
        `  ${scenario.name} with ${writesPerSecond} claims/s, pair ${round}/${writeRounds}: ${result.requestsPerSecond} req/s, ` +
          `p99 ${result.p99Ms} ms (${withoutWrites.requestsPerSecond} req/s, p99 ${withoutWrites.p99Ms} ms without, just before): x ${ratio} ` +
          `(writer: ${writes.inserted} claims, ${writes.errors} errors, insert mean ${writes.meanMs} ms, p99 ${writes.p99Ms} ms)${describeLoads(loads)}`,
      );
    }
    const median = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor(pairs.length / 2)]!;
    live.push({
      ...row,
      ...median.result,
      p99Ms: Math.max(...pairs.map((pair) => pair.result.p99Ms)),
      peakRssMb: Math.max(...pairs.map((pair) => pair.peakRssMb)),
      scenario: `${row.scenario} +writes`,
      noWritesRequestsPerSecond: median.withoutWrites.requestsPerSecond,
      ratioToNoWrites: median.ratio,
      ratiosToNoWrites: pairs.map((pair) => pair.ratio),
      writes: {
        perSecond: Math.round(median.writes.inserted / load.durationSeconds),
        inserted: pairs.reduce((sum, pair) => sum + pair.writes.inserted, 0),
        errors: pairs.reduce((sum, pair) => sum + pair.writes.errors, 0),
        meanMs: median.writes.meanMs,
        p99Ms: Math.max(...pairs.map((pair) => pair.writes.p99Ms)),
      },
      claimVolumeLoads: pairs.reduce((sum, pair) => sum + pair.loads, 0) || undefined,
      serverCpuMsPerAnswer: undefined,
      ceilingRequestsPerSecond: undefined,
      ratioToCeiling: undefined,
      baselineRequestsPerSecond: undefined,
      ratioToBaseline: undefined,
    });
    if (pairs.length > 1) log(`  ${scenario.name}: x no writes per pair ${pairs.map((pair) => pair.ratio).join(', ')}; median ${median.ratio}`);
  }
  return live;
}

/**
 * Adds to each `<scenario> compressed` row its requests per second and bytes on the wire per answer
 * as shares of the same scenario's uncompressed row, measured just before it on the same server.
 */
function withUncompressed(results: BenchRow[]): void {
  for (const row of results.filter((result) => result.scenario.endsWith(COMPRESSED))) {
    const plain = results.find((result) => result.scenario === row.scenario.slice(0, -COMPRESSED.length));
    if (!plain) continue;
    row.ratioToUncompressed = Math.round((100 * row.requestsPerSecond) / Math.max(1, plain.requestsPerSecond)) / 100;
    row.bytesRatioToUncompressed = Math.round((1000 * row.bytesPerResponse) / Math.max(1, plain.bytesPerResponse)) / 1000;
    log(`  ${row.scenario}: x ${row.ratioToUncompressed} of uncompressed req/s, x ${row.bytesRatioToUncompressed} of its bytes per answer`);
  }
}

/** An answer as it came over the wire, body undecoded (fetch would undo its Content-Encoding). */
interface CapturedAnswer {
  status: number;
  encoding: string | undefined;
  body: Buffer;
}

/** A scenario's answer as the ceiling server sends it again: the body (base64) and its Content-Encoding. */
interface CapturedBody {
  body: string;
  encoding: string | undefined;
}

function capture(url: string, headers: Record<string, string> = {}): Promise<CapturedAnswer> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * `work`, with the number of full claim-volume loads the server made meanwhile (its
 * claim_volume_loads_total), when there were any.
 */
async function countingLoads<T>(baseUrl: string, work: () => Promise<T>): Promise<{ value: T; loads: { claimVolumeLoads?: number } }> {
  const before = await claimVolumeLoads(baseUrl);
  const value = await work();
  const loads = (await claimVolumeLoads(baseUrl)) - before;
  return { value, loads: loads > 0 ? { claimVolumeLoads: loads } : {} };
}

async function claimVolumeLoads(baseUrl: string): Promise<number> {
  const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
  return [...metrics.matchAll(/^claim_volume_loads_total\{[^}]*\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

function describeLoads({ claimVolumeLoads }: { claimVolumeLoads?: number }): string {
  return claimVolumeLoads ? ` (the server reloaded the claim volumes ${claimVolumeLoads} time(s) meanwhile: the peak RSS includes it)` : '';
}

/** Adds to each row with a straightforward counterpart that counterpart's requests per second, and the ratio. */
async function withBaseline(results: BenchRow[], url: string): Promise<void> {
  const measured = results.filter((row) => BASELINES[row.scenario] !== undefined);
  if (measured.length === 0) return;
  const port = await freePort();
  const baseline = await start(
    ...pinned(process.execPath, ['--import', 'tsx', 'bench/baseline-server.ts', url, String(port)]),
    {},
    `http://127.0.0.1:${port}/baseline/list`,
  );
  try {
    for (const row of measured) {
      const path = BASELINES[row.scenario]!;
      const result = await drive(`http://127.0.0.1:${port}`, { name: `baseline ${row.scenario}`, path: () => path }, load);
      row.baselineRequestsPerSecond = result.requestsPerSecond;
      row.ratioToBaseline = Math.round((100 * row.requestsPerSecond) / Math.max(1, result.requestsPerSecond)) / 100;
      log(`  straightforward ${row.scenario}: ${result.requestsPerSecond} req/s`);
    }
  } finally {
    await stop(baseline);
  }
}

/** Adds to each row the ceiling's requests per second for the same bytes, and the ratio. */
async function withCeiling(results: BenchRow[], selected: Scenario[], bodies: CapturedBody[]): Promise<BenchRow[]> {
  const bodiesFile = join(tmpdir(), `bench-bodies-${process.pid}.json`);
  await writeFile(bodiesFile, JSON.stringify(bodies));
  const port = await freePort();
  const ceiling = await start(
    ...pinned(process.execPath, ['--import', 'tsx', 'bench/ceiling-server.ts', bodiesFile, String(port)]),
    {},
    `http://127.0.0.1:${port}/ceiling/0/`,
  );
  try {
    for (const row of results) {
      const scenario = selected[row.index]!;
      const measured = await drive(`http://127.0.0.1:${port}`, scenario, load, `/ceiling/${row.index}`);
      row.ceilingRequestsPerSecond = measured.requestsPerSecond;
      row.ratioToCeiling = Math.round((1000 * row.requestsPerSecond) / Math.max(1, measured.requestsPerSecond)) / 1000;
      log(`  ceiling ${row.scenario}: ${measured.requestsPerSecond} req/s`);
    }
    return results;
  } finally {
    await stop(ceiling);
  }
}
