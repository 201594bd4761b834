import type { DatasetSize } from './dataset.js';
import type { LoadResult } from './load.js';

export interface BenchRow extends LoadResult {
  scenario: string;
  campaigns: number;
  cache: 'on' | 'off';
  peakRssMb: number;
  /** Position of the scenario in its run, to find it again for the ceiling. */
  index: number;
  /** The server's CPU (all its threads) per answer while the scenario ran, in ms. */
  serverCpuMsPerAnswer?: number;
  /** The Content-Encoding of the scenario's answer at warm-up (`<scenario> compressed` rows). */
  contentEncoding?: string;
  /** `<scenario> compressed` rows: requests per second as a share of the uncompressed scenario's, same server. */
  ratioToUncompressed?: number;
  /** `<scenario> compressed` rows: bytes on the wire per answer as a share of the uncompressed scenario's. */
  bytesRatioToUncompressed?: number;
  ceilingRequestsPerSecond?: number;
  ratioToCeiling?: number;
  /** The straightforward implementation of the same request, measured in the same run (bench/baseline-server.ts). */
  baselineRequestsPerSecond?: number;
  ratioToBaseline?: number;
  /** Rows measured while claims stream in: the same scenario without writes, measured right before. */
  noWritesRequestsPerSecond?: number;
  /** Rows measured while claims stream in: their requests per second as a share of `noWritesRequestsPerSecond`. */
  ratioToNoWrites?: number;
  /** Rows measured while claims stream in: the ratio of every pair measured (the row is the median one's). */
  ratiosToNoWrites?: number[];
  /** What the claim writer did meanwhile: claims per second, failures, and the cost of one insert. */
  writes?: { perSecond: number; inserted: number; errors: number; meanMs: number; p99Ms: number };
  /**
   * Full loads of the claim volumes the server made while the scenario ran (its
   * claim_volume_loads_total): a load holds a second state and a worker's heap for seconds, so a
   * scenario's peak RSS with one in it is not the scenario's own. Absent when there were none.
   */
  claimVolumeLoads?: number;
}

export function printTable(rows: BenchRow[]): void {
  const header = [
    'scenario',
    'campaigns',
    'cache',
    'req/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'bytes',
    'CPU ms',
    'x uncompressed',
    'bytes x uncompressed',
    'ceiling req/s',
    'x ceiling',
    'baseline req/s',
    'x baseline',
    'x no writes',
    'claims/s',
    'insert ms',
    'peak RSS MB',
  ];
  const lines = rows.map((row) => [
    row.scenario,
    String(row.campaigns),
    row.cache,
    String(row.requestsPerSecond),
    String(row.p50Ms),
    String(row.p99Ms),
    String(row.errors + row.non2xx),
    String(row.bytesPerResponse),
    row.serverCpuMsPerAnswer === undefined ? '' : row.serverCpuMsPerAnswer.toFixed(3),
    row.ratioToUncompressed === undefined ? '' : row.ratioToUncompressed.toFixed(2),
    row.bytesRatioToUncompressed === undefined ? '' : row.bytesRatioToUncompressed.toFixed(3),
    String(row.ceilingRequestsPerSecond ?? ''),
    row.ratioToCeiling === undefined ? '' : row.ratioToCeiling.toFixed(3),
    String(row.baselineRequestsPerSecond ?? ''),
    row.ratioToBaseline === undefined ? '' : row.ratioToBaseline.toFixed(1),
    row.ratioToNoWrites === undefined ? '' : row.ratioToNoWrites.toFixed(2),
    String(row.writes?.perSecond ?? ''),
    row.writes === undefined ? '' : `${row.writes.meanMs} / ${row.writes.p99Ms}`,
    String(row.peakRssMb),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const format = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ');
  console.log(`\n${format(header)}\n${widths.map((width) => '-'.repeat(width)).join('  ')}`);
  for (const line of lines) console.log(format(line));
}

/**
 * The performance targets of the benchmark issue, checked on this run's numbers. Returns the ones
 * that do not hold; a target whose scenarios were not run is skipped.
 */
export function checkTargets(rows: BenchRow[], main: DatasetSize): string[] {
  const find = (scenario: string, cache: 'on' | 'off', campaigns = main.campaigns) =>
    rows.find((row) => row.scenario === scenario && row.cache === cache && row.campaigns === campaigns);
  const checks: [string, () => boolean | undefined][] = [];
  const target = (name: string, check: () => boolean | undefined) => checks.push([name, check]);

  target('list default, cache off: >= 2.5x straightforward and >= 10% of ceiling', () => {
    const row = find('list default', 'off');
    return row && (row.ratioToBaseline ?? 0) >= 2.5 && (row.ratioToCeiling ?? 0) >= 0.1;
  });
  target('list default, cache on: >= 60% of ceiling', () => {
    const row = find('list default', 'on');
    return row && (row.ratioToCeiling ?? 0) >= 0.6;
  });
  target('list pageSize=100, cache off: >= 3x straightforward', () => {
    const row = find('list pageSize=100', 'off');
    return row && (row.ratioToBaseline ?? 0) >= 3;
  });
  target('detail by id, cache off: >= 15% of ceiling', () => {
    const row = find('detail by random id', 'off');
    return row && (row.ratioToCeiling ?? 0) >= 0.15;
  });
  target('trending 24h, cache off: p99 < 20 ms and >= 200x raw aggregation', () => {
    const row = find('trending 24h', 'off');
    return row && row.p99Ms < 20 && (row.ratioToBaseline ?? 0) >= 200;
  });
  for (const scenario of ['reward-kit campaigns', 'reward-kit profile', 'activity by random id']) {
    target(`${scenario}, cache off: >= 50% of trending 24h's throughput, p99 <= 25 ms`, () => {
      const row = find(scenario, 'off');
      const trending = find('trending 24h', 'off');
      return row && trending && row.requestsPerSecond >= 0.5 * trending.requestsPerSecond && row.p99Ms <= 25;
    });
  }
  target('deep page 1000: p50 <= 2x page 1', () => {
    const deep = find('list page 1000', 'off');
    const first = find('list default', 'off');
    return deep && first && deep.p50Ms <= 2 * Math.max(first.p50Ms, 1);
  });
  target('history 30d by hour of the busiest campaign, cache off: p99 <= 20 ms', () => {
    const row = find('history 30d by hour', 'off');
    return row && row.p99Ms <= 20;
  });
  target('leaderboard 7d of all campaigns, cache off: p99 <= 20 ms', () => {
    const row = find('leaderboard 7d', 'off');
    return row && row.p99Ms <= 20;
  });
  target('activity deep page by cursor: p50 <= 1.5x page 1', () => {
    const deep = find('activity deep page by cursor', 'off');
    const first = find('activity page 1', 'off');
    return deep && first && deep.p50Ms <= 1.5 * Math.max(first.p50Ms, 1);
  });
  target('10k -> 100k campaigns: p50 of list and detail grows <= 30%', () => {
    const small = main.campaigns / 10;
    const pairs = ['list default', 'detail by random id'].map((name) => [find(name, 'off', small), find(name, 'off')] as const);
    if (pairs.some(([a, b]) => !a || !b)) return undefined;
    return pairs.every(([a, b]) => b!.p50Ms <= 1.3 * Math.max(a!.p50Ms, 1));
  });
  target('leaderboard 7d while claims stream in: >= 70% of its throughput without writes', () => {
    const row = find('leaderboard 7d +writes', 'off');
    return row && (row.ratioToNoWrites ?? 0) >= 0.7;
  });
  for (const scenario of ['trending 24h', 'contracts most-completions', 'list default']) {
    target(`${scenario} while claims stream in: >= 70% of its throughput without writes, p99 <= 25 ms`, () => {
      const row = find(`${scenario} +writes`, 'off');
      return row && (row.ratioToNoWrites ?? 0) >= 0.7 && row.p99Ms <= 25;
    });
  }
  target('no claim write failed while the API was under load', () => {
    const live = rows.filter((row) => row.writes);
    return live.length === 0 ? undefined : live.every((row) => row.writes!.errors === 0);
  });
  target('peak RSS < 200 MB in every scenario', () => rows.length > 0 && rows.every((row) => row.peakRssMb < 200));
  target('no errors in any scenario', () => rows.length > 0 && rows.every((row) => row.errors + row.non2xx === 0));

  const failures: string[] = [];
  console.log('\nTargets:');
  for (const [name, check] of checks) {
    const outcome = check();
    console.log(`  ${outcome === undefined ? 'skip' : outcome ? 'PASS' : 'FAIL'}  ${name}`);
    if (outcome === false) failures.push(name);
  }
  return failures;
}
