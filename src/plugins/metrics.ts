import { createServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ClaimWindows } from '../claim-volumes/index.js';
import type { EventFeed, EventStreams } from '../events/index.js';
import type { EntryCache } from '../services/entry-cache.js';
import type { ProfileCache } from '../services/profile-cache.js';
import type { HistoryCache } from '../services/history-cache.js';
import { registerBuildInfo } from '../build-info.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics, for plugins that count their own events; undefined with METRICS_ENABLED=false. */
    metricsRegistry?: Registry;
    /** The exposition text of every metric (the process's and the app's). */
    metricsText?: () => Promise<string>;
  }
}

/**
 * Prometheus metrics at `GET /metrics`: requests and their latency per route pattern, method and
 * status; the database pool's usage; the process's own (CPU, memory, GC, event loop lag) and what
 * build it runs (campaign_service_build_info).
 *
 * The route label is the route's pattern (`/campaigns/:id`), never the raw URL, so the number of
 * series stays fixed whatever clients ask; requests no route matched share `unmatched`.
 */

/** Process metrics describe the process, so they are collected once, however many apps it builds (tests build many). */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    registerBuildInfo(processRegistry);
  }
  return processRegistry;
}

/** From a cached answer's time to the statement timeout (5 s by default). */
const LATENCY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = fp<{ pool?: pg.Pool; /** Serve GET /metrics on the API's port (false: serveMetrics on a port of its own). */ route?: boolean }>(
  (app: FastifyInstance, { pool, route = true }) => {
    const registry = new Registry();
    const labelNames = ['method', 'route', 'status_code'] as const;
    const requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames,
      registers: [registry],
    });
    const latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to sending its response, by method, route pattern and status code',
      labelNames,
      buckets: LATENCY_BUCKETS_S,
      registers: [registry],
    });
    if (pool) registerPoolGauges(registry, pool);
    app.decorate('metricsRegistry', registry);
    app.decorate('metricsText', async () => `${await processMetrics().metrics()}\n${await registry.metrics()}`);

    app.addHook('onResponse', (request, reply, done) => {
      const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: reply.statusCode };
      requests.inc(labels);
      latency.observe(labels, reply.elapsedTime / 1000);
      done();
    });

    if (route) {
      app.get('/metrics', { schema: { hide: true }, config: { rateLimit: false, overloadExempt: true } }, async (_request, reply) =>
        reply.type(registry.contentType).send(await app.metricsText!()),
      );
    }
  },
  { name: 'metrics' },
);

function registerPoolGauges(registry: Registry, pool: pg.Pool): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('db_pool_connections', 'Connections the pool holds open, busy or idle', () => pool.totalCount);
  gauge('db_pool_idle_connections', 'Open connections waiting for a query', () => pool.idleCount);
  gauge('db_pool_waiting_requests', 'Queries waiting for a free connection', () => pool.waitingCount);
}

/** Budget lookups the rate limit's shared store (Redis) failed; those requests passed unlimited. */
export function rateLimitStoreErrors(registry: Registry): Counter {
  return new Counter({
    name: 'rate_limit_store_errors_total',
    help: 'Rate limit lookups that failed because the shared store (Redis) did not answer; the requests passed unlimited',
    registers: [registry],
  });
}

/** The trending and reward-kit entry cache: how many entries it keeps, and how often a kept one was reused. */
export function registerEntryCacheMetrics(registry: Registry, cache: EntryCache): void {
  new Gauge({
    name: 'reward_entries_kept',
    help: 'Built trending and reward-kit entries the server keeps (ENTRY_CACHE_SIZE at most)',
    registers: [registry],
    collect() {
      this.set(cache.size);
    },
  });
  lookupCounter(
    registry,
    'reward_entry_lookups_total',
    'Entries the trending and reward-kit operations looked up: reused (kept and unchanged) or missed (built again)',
    () => cache.lookups,
  );
}

/** The reward-kit profile cache: the bytes of answers it keeps, and how often a kept one was served. */
export function registerProfileCacheMetrics(registry: Registry, cache: ProfileCache): void {
  new Gauge({
    name: 'reward_profiles_kept_bytes',
    help: 'Bytes of GET /reward-kit answers the server keeps (PROFILE_CACHE_MAX_MB at most)',
    registers: [registry],
    collect() {
      this.set(cache.keptBytes);
    },
  });
  lookupCounter(
    registry,
    'reward_profile_lookups_total',
    'GET /reward-kit answers that could be kept: reused (kept and unchanged) or missed (built, kept or built again)',
    () => cache.lookups,
  );
}

export function registerHistoryCacheMetrics(registry: Registry, cache: HistoryCache): void {
  new Gauge({
    name: 'campaign_histories_kept_bytes',
    help: 'Bytes of GET /campaigns/{id}/history answers the server keeps (HISTORY_CACHE_MAX_MB at most)',
    registers: [registry],
    collect() {
      this.set(cache.keptBytes);
    },
  });
  lookupCounter(
    registry,
    'campaign_history_lookups_total',
    'GET /campaigns/{id}/history answers that could be kept: reused (kept and unchanged) or missed (built, kept or built again)',
    () => cache.lookups,
  );
}

/** The claim volumes' full loads by reason (ClaimWindows.loads): at start, and each reload after it. */
export function registerClaimWindowsMetrics(registry: Registry, claimWindows: ClaimWindows): void {
  countedByLabel(
    registry,
    'claim_volume_loads_total',
    'Full loads of the claim volumes (a week of claims) by reason: start, behind (the change feed), large_write, bulk_reload',
    'reason',
    () => claimWindows.loads,
  );
}

/** The GET /events streams: how many are open, how many were dropped and why, and the refetches they were sent. */
export function registerEventStreamMetrics(registry: Registry, streams: EventStreams, feed: EventFeed): void {
  new Gauge({
    name: 'event_streams_open',
    help: 'GET /events streams this process holds open (EVENTS_MAX_STREAMS at most)',
    registers: [registry],
    collect() {
      this.set(streams.size);
    },
  });
  countedByLabel(
    registry,
    'event_streams_dropped_total',
    'GET /events streams the server closed, by reason: stalled (the client read nothing of what waited for it for EVENTS_STALL_MS)',
    'reason',
    () => streams.dropped,
  );
  countedByLabel(
    registry,
    'event_stream_refetches_total',
    'refetch events sent to a single stream, by reason: pruned (it resumed or fell behind past the retention) or ahead (its Last-Event-ID is not in this event log)',
    'reason',
    () => feed.refetched,
  );
}

/**
 * A cache's lookups by result. Counted by the cache itself (a request may look up hundreds of
 * entries); added here when scraped.
 */
function lookupCounter(registry: Registry, name: string, help: string, lookups: () => { reused: number; missed: number }): void {
  countedByLabel(registry, name, help, 'result', lookups);
}

/**
 * A counter of events a component counts itself, one series per key of what `read` returns (the
 * label's values), brought up to date when scraped.
 */
export function countedByLabel<Key extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: string,
  read: () => Readonly<Record<Key, number>>,
): void {
  let counted = read();
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      const now = read();
      for (const key of Object.keys(now) as Key[]) this.inc({ [label]: key }, now[key] - counted[key]);
      counted = now;
    },
  });
}

/**
 * GET /metrics of the app on a port of its own (METRICS_PORT): what Prometheus scrapes stays off the
 * port the public reaches. Plain node:http, as the indexer's status server: one fixed answer.
 */
export async function serveMetrics(app: FastifyInstance, host: string, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (code: number, type: string, body: string) => {
      response.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    if (request.method !== 'GET' || path !== '/metrics' || !app.metricsText) return send(404, 'application/json', JSON.stringify({ error: 'only GET /metrics is served here' }));
    app.metricsText().then(
      (text) => send(200, app.metricsRegistry!.contentType, text),
      (error: Error) => send(500, 'application/json', JSON.stringify({ error: error.message })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { port: number };
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
