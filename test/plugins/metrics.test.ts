import { readFileSync } from 'node:fs';
import { serveMetrics } from '../../src/plugins/metrics.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign } from '../helpers/factories.js';

/** The value of one sample line of a Prometheus exposition, or undefined when absent. */
function sample(exposition: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = exposition
    .split('\n')
    .find((candidate) => candidate.startsWith(`${name}{`) && wanted.every((label) => candidate.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  let database: TestDatabase;
  let app: App;
  let campaignId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    campaignId = (await insertCampaign(database.db)).publicId;
    // A rate limit of 3 shows that scrapes and probes are never limited.
    app = await buildTestApp(database, { RATE_LIMIT_MAX: '3' });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('counts requests and observes latency per route pattern, method and status', async () => {
    await app.inject(`/campaigns/${campaignId}`);
    await app.inject(`/campaigns/${campaignId.replace(/:[0-9]+$/, ':999999')}`);
    await app.inject('/campaigns?pageSize=1000');
    await app.inject('/not/a/route/123');

    const response = await app.inject('/metrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = response.body;
    const route = (path: string, status: string) => ({ method: 'GET', route: path, status_code: status });
    expect(sample(text, 'http_requests_total', route('/campaigns/:id', '200'))).toBe(1);
    expect(sample(text, 'http_requests_total', route('/campaigns/:id', '404'))).toBe(1);
    expect(sample(text, 'http_requests_total', route('/campaigns', '400'))).toBe(1);
    expect(sample(text, 'http_requests_total', route('unmatched', '404'))).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', route('/campaigns/:id', '200'))).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', { ...route('/campaigns/:id', '200'), le: '+Inf' })).toBe(1);
    // What build answers: the package's version and the Node.js running it.
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(sample(text, 'campaign_service_build_info', { version, commit: process.env.BUILD_COMMIT || 'unknown', node: process.version })).toBe(1);
    // Raw URLs never become label values.
    expect(text).not.toContain(campaignId);
    expect(text).not.toContain('/not/a/route');
  });

  it('exposes the process metrics, event loop lag included', async () => {
    const text = (await app.inject('/metrics')).body;
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
  });

  it('counts the full loads of the claim volumes by reason: the one at start, by the background job', async () => {
    const loads = async (reason: string) => sample((await app.inject('/metrics')).body, 'claim_volume_loads_total', { reason });
    await vi.waitFor(async () => expect(await loads('start')).toBe(1));
    for (const reason of ['behind', 'large_write', 'bulk_reload']) expect(await loads(reason)).toBe(0);
  });

  it('exposes the pool usage on PostgreSQL (PGlite has no pool)', async () => {
    const text = (await app.inject('/metrics')).body;
    if (database.pool) {
      expect(text).toMatch(/^db_pool_connections \d+$/m);
      expect(text).toMatch(/^db_pool_idle_connections \d+$/m);
      expect(text).toMatch(/^db_pool_waiting_requests 0$/m);
    } else {
      expect(text).not.toContain('db_pool_connections');
    }
  });

  it('is never rate limited, and neither are the health probes', async () => {
    for (let i = 0; i < 6; i++) {
      expect((await app.inject('/metrics')).statusCode).toBe(200);
      expect((await app.inject('/health/live')).statusCode).toBe(200);
    }
  });

  it('is not in the API document', async () => {
    const paths = Object.keys(app.swagger().paths ?? {});
    expect(paths).toContain('/campaigns');
    expect(paths).not.toContain('/metrics');
  });

  it('is absent with METRICS_ENABLED=false', async () => {
    const withoutMetrics = await buildTestApp(database, { METRICS_ENABLED: 'false' });
    try {
      expect((await withoutMetrics.inject('/metrics')).statusCode).toBe(404);
    } finally {
      await withoutMetrics.close();
    }
  });

  it('is served on a port of its own with METRICS_PORT, and not on the API', async () => {
    const apart = await buildTestApp(database, { METRICS_PORT: '9100' });
    const server = await serveMetrics(apart, '127.0.0.1', 0);
    try {
      await apart.inject(`/campaigns/${campaignId}`);
      expect((await apart.inject('/metrics')).statusCode).toBe(404);
      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(sample(text, 'http_requests_total', { method: 'GET', route: '/campaigns/:id', status_code: '200' })).toBe(1);
      expect(text).toContain('campaign_service_build_info{');
      expect((await fetch(`${server.url}/campaigns`)).status).toBe(404);
    } finally {
      await server.close();
      await apart.close();
    }
  });
});
