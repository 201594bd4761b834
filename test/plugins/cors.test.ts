import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const ALLOWED = 'https://app.example.com';

const preflight = (origin: string, url = '/campaigns') => ({
  method: 'OPTIONS' as const,
  url,
  headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
});

describe('CORS', () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database, { CORS_ORIGINS: `${ALLOWED},http://localhost:5173` });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('lets an allowed origin read the answer and its caching, tracing and rate limit headers', async () => {
    const response = await app.inject({ url: '/campaigns', headers: { origin: ALLOWED } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(response.headers['access-control-expose-headers']).split(', ')).toEqual([
      'ETag',
      'X-Request-Id',
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]);
    expect(response.headers.vary).toContain('Origin');
  });

  it('sends no allow-origin to another origin', async () => {
    const response = await app.inject({ url: '/campaigns', headers: { origin: 'https://evil.example.net' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a preflight without credentials: GET/HEAD/OPTIONS and the Authorization header', async () => {
    for (const url of ['/campaigns', '/campaigns/accesslists', '/users/profile']) {
      const response = await app.inject(preflight(ALLOWED, url));
      expect(response.statusCode, url).toBe(204);
      expect(response.headers['access-control-allow-origin'], url).toBe(ALLOWED);
      expect(response.headers['access-control-allow-methods'], url).toBe('GET, HEAD, OPTIONS');
      expect(String(response.headers['access-control-allow-headers']), url).toContain('Authorization');
      expect(response.headers['access-control-max-age'], url).toBe('600');
    }
  });

  it('gives a preflight from another origin no permission', async () => {
    const response = await app.inject(preflight('https://evil.example.net'));
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('keeps 404 for unknown paths (the preflight catch-all does not make every path known)', async () => {
    const response = await app.inject('/no/such/path');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'route GET /no/such/path not found' });
  });

  it('sends no CORS header at all when CORS_ORIGINS is empty', async () => {
    const closed = await buildTestApp(database);
    try {
      const response = await closed.inject({ url: '/campaigns', headers: { origin: ALLOWED } });
      expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
      expect((await closed.inject(preflight(ALLOWED))).headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await closed.close();
    }
  });

  it('lets the allowed origin read errors too, a 429 and its Retry-After included', async () => {
    const limited = await buildTestApp(database, { CORS_ORIGINS: ALLOWED, RATE_LIMIT_MAX: '1' });
    try {
      await limited.inject({ url: '/campaigns', headers: { origin: ALLOWED } });
      const response = await limited.inject({ url: '/campaigns', headers: { origin: ALLOWED } });
      expect(response.statusCode).toBe(429);
      expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(String(response.headers['access-control-expose-headers'])).toContain('Retry-After');
    } finally {
      await limited.close();
    }
  });

  it('allows any origin with CORS_ORIGINS=*', async () => {
    const open = await buildTestApp(database, { CORS_ORIGINS: '*' });
    try {
      const response = await open.inject({ url: '/campaigns', headers: { origin: 'https://anyone.example.org' } });
      expect(response.headers['access-control-allow-origin']).toBe('*');
    } finally {
      await open.close();
    }
  });
});
