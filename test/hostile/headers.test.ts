import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Sends raw bytes to the listening app and reads until it closes the connection. */
async function rawExchange(port: number, request: string): Promise<{ status: number; body: string }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined); // the server may hang up while we still write
  socket.end(request);
  await once(socket, 'close');
  const raw = Buffer.concat(chunks).toString('utf8');
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body };
}

describe('hostile headers', () => {
  let database: TestDatabase;
  let app: App;
  let port: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database, { RATE_LIMIT_MAX: '1000000' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it.each([
    ['one huge header', `X-Filler: ${'a'.repeat(20_000)}\r\n`],
    ['many headers adding up', Array.from({ length: 400 }, (_, i) => `X-Filler-${i}: ${'b'.repeat(60)}\r\n`).join('')],
    ['a huge Authorization header', `Authorization: Bearer ${'c'.repeat(20_000)}\r\n`],
  ])('%s: 431 in the envelope', async (_case, headers) => {
    const answer = await rawExchange(port, `GET /campaigns HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`);
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({ error: 'request headers are too large' });
    expect((await app.inject('/health/live')).statusCode).toBe(200);
  });

  it('a request body over 1 MiB: 413 in the envelope, before the 405 its method would get (no operation reads a body)', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/campaigns',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ filler: 'd'.repeat(1024 * 1024) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({ error: 'Request body is too large' });
  });

  it.each([
    ['a NUL in a header value', 'X-Evil: a\u0000b\r\n'],
    ['a header without a colon', 'NoColonHere\r\n'],
    ['a bare LF line ending in the middle', 'X-A: 1\nX-B: 2\r\n'],
  ])('malformed HTTP (%s): 400 in the envelope', async (_case, headers) => {
    const answer = await rawExchange(port, `GET /campaigns HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`);
    expect(answer.status).toBe(400);
    expect(Object.keys(JSON.parse(answer.body) as object)).toEqual(['error']);
  });

  it('any malformed Authorization header on the staging routes is a 401 in the envelope with WWW-Authenticate', async () => {
    // Printable ASCII (what a header value may hold), with and without a Bearer prefix.
    const value = fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 200 }),
      fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((rest) => `Bearer ${rest}`),
      fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((rest) => `bearer  cs_${rest}`),
      fc.constantFrom('Bearer', 'Bearer ', 'Basic Zm9vOmJhcg==', 'Bearer null', 'Bearer undefined', `Bearer cs_${'A'.repeat(44)}`),
    ).map((raw) => raw.replace(/[^\x20-\x7e]/g, '').trim()).filter((raw) => raw !== '');
    await fc.assert(
      fc.asyncProperty(value, fc.constantFrom('/users/profile', '/campaigns/accesslists'), async (authorization, url) => {
        const response = await app.inject({ url, headers: { authorization } });
        expect(response.statusCode, authorization).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Bearer');
        expect(Object.keys(response.json<object>())).toEqual(['error']);
      }),
      { numRuns: 300, endOnFailure: true },
    );
  });
});
