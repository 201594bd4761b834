import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { HttpError } from '../../src/errors.js';
import { StringEnum } from '../../src/schemas/typebox.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** The server-wide input rules and error envelope, exercised through test-only routes. */
const EchoQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 0 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  flag: Type.Optional(Type.Boolean()),
  owner: Type.Optional(Type.String({ pattern: '^0x[a-fA-F0-9]{40}$', errorMessage: 'must be an address' })),
  tokens: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9]+$', errorMessage: 'must be digits' }), { maxItems: 50 })),
  period: Type.Optional(StringEnum(['1h', '24h'])),
});

function addTestRoutes(app: App) {
  app.get('/test/echo', { schema: { querystring: EchoQuery } }, async (request) => request.query);
  app.get('/test/boom', async () => {
    throw new Error('secret detail: SELECT * FROM users WHERE password = 1');
  });
  app.get('/test/conflict', async () => {
    throw new HttpError(409, 'already there');
  });
  app.get('/test/timeout', async () => {
    throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
  });
  app.get('/test/db-down', async () => {
    throw new Error('Failed query', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
  });
}

describe('server-wide input rules and error envelope', () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database, {}, addTestRoutes);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const get = async (url: string) => {
    const response = await app.inject({ method: 'GET', url });
    return { status: response.statusCode, body: response.json<Record<string, unknown>>(), headers: response.headers };
  };

  it('converts valid values: integers, booleans, trimmed comma lists merged across repeats', async () => {
    const { status, body } = await get('/test/echo?page=0&pageSize=100&flag=false&tokens=1,%202%20,3&tokens=4&period=1h');
    expect(status).toBe(200);
    expect(body).toEqual({ page: 0, pageSize: 100, flag: false, tokens: ['1', '2', '3', '4'], period: '1h' });
  });

  it.each([
    ['pagesize=10', "unknown query parameter 'pagesize'"],
    ['page=1&page=2', 'page must be given only once'],
    ['page=1e2', 'page must be an integer written in decimal digits'],
    ['page=0x10', 'page must be an integer written in decimal digits'],
    ['page=10.0', 'page must be an integer written in decimal digits'],
    ['page=%2010', 'page must be an integer written in decimal digits'],
    ['page=', 'page must be an integer written in decimal digits'],
    ['page=-1', 'page must be >= 0'],
    ['pageSize=101', 'pageSize must be <= 100'],
    ['pageSize=99999999999999999999999', 'pageSize must be <= 100'],
    ['flag=1', 'flag must be true or false'],
    ['flag=TRUE', 'flag must be true or false'],
    ['owner=0x12', 'owner must be an address'],
    ["owner=1'%20OR%201=1--", 'owner must be an address'],
    ['owner=%00', 'owner must be an address'],
    ['tokens=1,x', 'tokens entry 2 must be digits'],
    [`tokens=${Array.from({ length: 51 }, (_, i) => i).join(',')}`, 'tokens must have at most 50 entries'],
    ['period=7d', 'period must be one of: 1h, 24h'],
    ['period=1h&period=24h', 'period must be given only once'],
    ['%3Cscript%3E=1', "unknown query parameter '<script>'"],
  ])('?%s is a 400: %s', async (query, message) => {
    const { status, body } = await get(`/test/echo?${query}`);
    expect(status).toBe(400);
    expect(body).toEqual({ error: message });
  });

  it('accepts exactly 50 list entries', async () => {
    const { status } = await get(`/test/echo?tokens=${Array.from({ length: 50 }, (_, i) => i).join(',')}`);
    expect(status).toBe(200);
  });

  it('rejects any query parameter on a route that declares none', async () => {
    expect(await get('/health/live?verbose=true')).toMatchObject({
      status: 400,
      body: { error: "unknown query parameter 'verbose'" },
    });
  });

  it('answers an unknown route with 404 and a wrong method with 405 and Allow', async () => {
    expect(await get('/no/such/route')).toMatchObject({ status: 404, body: { error: 'route GET /no/such/route not found' } });
    const response = await app.inject({ method: 'DELETE', url: '/test/echo' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(Object.keys(response.json<object>())).toEqual(['error']);
  });

  it('answers an over-long URL with 414', async () => {
    const { status, body } = await get(`/test/echo?owner=${'a'.repeat(9000)}`);
    expect(status).toBe(414);
    expect(body).toEqual({ error: 'request URL is longer than 8192 characters' });
  });

  it('hides the detail of an unexpected error behind a generic 500', async () => {
    const { status, body } = await get('/test/boom');
    expect(status).toBe(500);
    expect(body).toEqual({ error: 'internal server error' });
  });

  it('passes a deliberate HttpError through, maps a statement timeout to 504 and a lost database to 503', async () => {
    expect(await get('/test/conflict')).toMatchObject({ status: 409, body: { error: 'already there' } });
    expect((await get('/test/timeout')).status).toBe(504);
    const down = await get('/test/db-down');
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBeDefined();
    expect(Object.keys(down.body)).toEqual(['error']);
  });

  it('answers headers too large for Node with a 431 in the envelope', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ port, path: '/health/live', headers: { 'x-filler': 'a'.repeat(20_000) } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(431);
    expect(JSON.parse(body)).toEqual({ error: 'request headers are too large' });
  });
});
