import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp, useTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertApiToken, insertUser } from '../helpers/factories.js';

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
      'Age',
      'Indexed-Blocks',
      'X-Request-Id',
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'RateLimit-Policy',
      'RateLimit',
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

  it('gives a preflight from another origin no permission, for a public or a staging operation alike', async () => {
    for (const url of ['/campaigns', '/campaigns/accesslists', '/users/profile']) {
      const response = await app.inject(preflight('https://evil.example.net', url));
      expect(response.statusCode, url).toBe(204);
      expect(response.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(response.body, url).toBe('');
    }
  });

  it('keeps 404 for unknown paths (the preflight catch-all does not make every path known)', async () => {
    const response = await app.inject('/no/such/path');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'route GET /no/such/path not found' });
  });

  it('sends no CORS header at all with CORS_ORIGINS=none (a gateway answers CORS)', async () => {
    const closed = await buildTestApp(database, { CORS_ORIGINS: 'none' });
    try {
      const response = await closed.inject({ url: '/campaigns', headers: { origin: ALLOWED } });
      expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
      for (const url of ['/campaigns', '/users/profile']) {
        const refused = await closed.inject(preflight(ALLOWED, url));
        expect(refused.statusCode, url).toBe(405);
        expect(Object.keys(refused.headers).filter((name) => name.startsWith('access-control-')), url).toEqual([]);
      }
    } finally {
      await closed.close();
    }
  });

  it('lets a listed origin read a staging answer, and no other origin', async () => {
    const user = await insertUser(database.db);
    const { token } = await insertApiToken(database.db, user.id);
    const asked = (origin: string) =>
      app.inject({ url: '/users/profile', headers: { origin, authorization: `Bearer ${token}` } });
    const allowed = await asked(ALLOWED);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED);
    const other = await asked('https://evil.example.net');
    expect(other.statusCode).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
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

  it('allows any origin with CORS_ORIGINS=*, on the staging operations too', async () => {
    const open = await buildTestApp(database, { CORS_ORIGINS: '*' });
    try {
      const response = await open.inject({ url: '/campaigns', headers: { origin: 'https://anyone.example.org' } });
      expect(response.headers['access-control-allow-origin']).toBe('*');
      const staging = await open.inject(preflight('https://anyone.example.org', '/users/profile'));
      expect(staging.statusCode).toBe(204);
      expect(staging.headers['access-control-allow-origin']).toBe('*');
    } finally {
      await open.close();
    }
  });
});

describe('CORS by default (CORS_ORIGINS unset)', () => {
  const FRONTEND = 'http://localhost:5173';
  const setup = useTestApp();

  it.each(['/campaigns', '/campaigns/1:0x0000000000000000000000000000000000000001:1', '/reward-kit/trending', '/explore/contracts'])(
    'lets any origin read the public answer of %s, without credentials',
    async (url) => {
      const response = await setup.app.inject({ url, headers: { origin: FRONTEND } });
      expect(response.headers['access-control-allow-origin'], url).toBe('*');
      expect(response.headers['access-control-allow-credentials'], url).toBeUndefined();
      expect(String(response.headers['access-control-expose-headers'])).toContain('ETag');
    },
  );

  it('answers a preflight for a public operation with 204, the methods and the headers', async () => {
    const response = await setup.app.inject(preflight(FRONTEND, '/campaigns?pageSize=5'));
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(response.headers['access-control-allow-headers']).toBe('Authorization, If-None-Match, X-Request-Id, Last-Event-ID');
    expect(response.headers['access-control-max-age']).toBe('600');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('gives no origin the staging operations: a preflight answered without permission (not a 405), no allow-origin on the answer', async () => {
    const user = await insertUser(setup.database.db);
    const { token } = await insertApiToken(setup.database.db, user.id);
    for (const url of ['/campaigns/accesslists', '/users/profile', '/users/profile?x=1', '/users/%70rofile']) {
      const refused = await setup.app.inject(preflight(FRONTEND, url));
      expect(refused.statusCode, url).toBe(204);
      expect(refused.body, url).toBe('');
      expect(Object.keys(refused.headers).filter((name) => name.startsWith('access-control-')), url).toEqual([]);
      expect(refused.headers['www-authenticate'], url).toBeUndefined();
    }
    // The actual answer is decided by its route, however the path is spelled.
    for (const url of ['/users/profile', '/users/%70rofile']) {
      const answer = await setup.app.inject({ url, headers: { origin: FRONTEND, authorization: `Bearer ${token}` } });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers['access-control-allow-origin'], url).toBeUndefined();
    }
  });

  it('treats an OPTIONS request that is no preflight as any other method: 405 in the envelope', async () => {
    const response = await setup.app.inject({ method: 'OPTIONS', url: '/campaigns' });
    expect(response.statusCode).toBe(405);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ error: expect.stringContaining('OPTIONS') as unknown });
  });
});
