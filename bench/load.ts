import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import type { Scenario } from './scenarios.js';

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  bytesPerResponse: number;
}

/** Drives `baseUrl` with the scenario's requests over keep-alive connections for a fixed time. */
export async function drive(baseUrl: string, scenario: Scenario, options: LoadOptions, prefix = ''): Promise<LoadResult> {
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: scenario.headers,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: prefix + scenario.path() }) }],
  });
  const responses = result['2xx'] + result.non2xx;
  return {
    requestsPerSecond: Math.round(responses / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    bytesPerResponse: responses === 0 ? 0 : Math.round((result.throughput.total ?? 0) / responses),
  };
}

/** The highest resident set size of a process while `work` runs, in MB (Linux /proc). */
export async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakRssMb: number }> {
  let peak = 0;
  const sample = async () => {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    peak = Math.max(peak, kilobytes / 1024);
  };
  const timer = setInterval(() => void sample(), 250);
  try {
    const result = await work();
    await sample();
    return { result, peakRssMb: Math.round(peak) };
  } finally {
    clearInterval(timer);
  }
}
