import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import type { Scenario } from './scenarios.js';

/**
 * autocannon keeps each answer's body as a string, for options the benchmark does not use (expectBody,
 * verifyBody, onResponse), and so decodes every body as UTF-8 on the load generator's core: cheap for
 * JSON, many times dearer per byte for a compressed, binary body, enough to make the load generator
 * rather than the server the limit of the compressed rows and of their ceiling. The benchmark never
 * reads a body, so it keeps none; every row, compressed or not, is spared the same work.
 */
const PipelinedRequestsQueue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody: (data: Buffer) => void };
};
PipelinedRequestsQueue.prototype.addBody = () => undefined;

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
  /** Answers received, 2xx or not. */
  responses: number;
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
    // Every byte read from the socket: headers, chunk framing and the body as sent (compressed or not).
    bytesPerResponse: responses === 0 ? 0 : Math.round((result.throughput.total ?? 0) / responses),
    responses,
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

/**
 * CPU time a process has used so far, in ms, over all its threads: the libuv pool compresses large
 * answers off the main thread, and its GC runs on threads of its own. From /proc/<pid>/task/<tid>/schedstat
 * (nanoseconds; stat's 10 ms ticks are coarse). A thread that ended in between is not counted.
 */
export async function processCpuMs(pid: number): Promise<number> {
  const threads = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  let nanoseconds = 0;
  for (const thread of threads) {
    const schedstat = await readFile(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').catch(() => '0');
    nanoseconds += Number(schedstat.split(' ')[0]) || 0;
  }
  return nanoseconds / 1e6;
}
