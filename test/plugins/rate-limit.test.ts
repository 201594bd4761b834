import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

describe('rate limit per client IP', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  /** A fresh app (fresh budgets) allowing `max` requests a minute, with extra settings. */
  async function withApp(settings: Record<string, string>, test: (app: App) => Promise<void>) {
    const app = await buildTestApp(database, { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000', ...settings });
    try {
      await test(app);
    } finally {
      await app.close();
    }
  }

  it('answers over budget with 429 in the envelope, Retry-After and the budget headers', async () => {
    await withApp({}, async (app) => {
      const first = await app.inject('/campaigns');
      expect(first.statusCode).toBe(200);
      expect(first.headers['x-ratelimit-limit']).toBe('2');
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      expect((await app.inject('/campaigns')).statusCode).toBe(200);

      const limited = await app.inject('/campaigns');
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['content-type']).toMatch(/^application\/json/);
      const body = limited.json<Record<string, string>>();
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toMatch(/^rate limit exceeded: at most 2 requests per minute; retry in /);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      // A 429 is an error: never cacheable.
      expect(limited.headers['cache-control']).toBeUndefined();
    });
  });

  it('is off with RATE_LIMIT_MAX=0', async () => {
    await withApp({ RATE_LIMIT_MAX: '0' }, async (app) => {
      for (let i = 0; i < 5; i++) {
        const response = await app.inject('/campaigns');
        expect(response.statusCode).toBe(200);
        expect(response.headers['x-ratelimit-limit']).toBeUndefined();
      }
    });
  });

  it('counts each client IP on its own', async () => {
    await withApp({}, async (app) => {
      const from = (remoteAddress: string) => app.inject({ url: '/campaigns', remoteAddress });
      await from('192.0.2.1');
      await from('192.0.2.1');
      expect((await from('192.0.2.1')).statusCode).toBe(429);
      expect((await from('192.0.2.2')).statusCode).toBe(200);
    });
  });

  it('exempts the health probes', async () => {
    await withApp({}, async (app) => {
      for (let i = 0; i < 5; i++) {
        expect((await app.inject('/health/live')).statusCode).toBe(200);
        expect((await app.inject('/health/ready')).statusCode).toBe(200);
      }
    });
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY names the proxy', async () => {
    const viaProxy = (app: App, client: string) =>
      app.inject({ url: '/campaigns', remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': client } });

    await withApp({}, async (app) => {
      await viaProxy(app, '198.51.100.1');
      await viaProxy(app, '198.51.100.2');
      // Without trust, every client behind the proxy shares the proxy's budget.
      expect((await viaProxy(app, '198.51.100.3')).statusCode).toBe(429);
    });

    await withApp({ TRUST_PROXY: '10.0.0.0/8' }, async (app) => {
      await viaProxy(app, '198.51.100.1');
      await viaProxy(app, '198.51.100.1');
      expect((await viaProxy(app, '198.51.100.1')).statusCode).toBe(429);
      expect((await viaProxy(app, '198.51.100.2')).statusCode).toBe(200);
    });
  });
});
