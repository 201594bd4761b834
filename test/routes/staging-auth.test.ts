import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { openDatabase } from '../../src/db/client.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertApiToken, insertUser } from '../helpers/factories.js';

const STAGING_ROUTES = ['/campaigns/accesslists', '/users/profile'];
const WELL_FORMED_UNKNOWN_TOKEN = `cs_${'A'.repeat(43)}`;

/** Flips one character of a token, keeping it well formed, so the lookup itself must refuse it. */
const oneCharacterOff = (token: string) => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;

describe('bearer auth of the staging routes', () => {
  let database: TestDatabase;
  let app: App;
  let token: string;
  let tokenId: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    const user = await insertUser(database.db);
    ({ token, id: tokenId } = await insertApiToken(database.db, user.id));
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const get = (url: string, authorization?: string, method: 'GET' | 'HEAD' = 'GET') =>
    app.inject({ method, url, headers: authorization === undefined ? {} : { authorization } });

  function expectUnauthorized(response: Awaited<ReturnType<typeof get>>, message?: string) {
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json<Record<string, unknown>>();
    expect(Object.keys(body)).toEqual(['error']);
    if (message) expect(body.error).toBe(message);
  }

  it.each(STAGING_ROUTES)('%s answers 200 to an active token, private and uncached', async (url) => {
    const response = await get(url, `Bearer ${token}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('private, no-store');
  });

  it('accepts the scheme name in any case (RFC 7235) and spaces around the token', async () => {
    expect((await get('/users/profile', `bearer ${token}`)).statusCode).toBe(200);
    expect((await get('/users/profile', `BEARER   ${token}  `)).statusCode).toBe(200);
  });

  const MISSING = 'missing bearer token: send the header Authorization: Bearer <token>';
  const MALFORMED = 'malformed Authorization header: expected Bearer followed by a token';
  const INVALID = 'invalid bearer token';

  it.each(STAGING_ROUTES)('%s refuses every missing, malformed or unknown credential with 401', async (url) => {
    expectUnauthorized(await get(url), MISSING);
    expectUnauthorized(await get(url, ''), MISSING);
    expectUnauthorized(await get(url, 'Basic dXNlcjpwYXNzd29yZA=='), MALFORMED);
    expectUnauthorized(await get(url, `Basic ${token}`), MALFORMED);
    expectUnauthorized(await get(url, 'Bearer'), MALFORMED);
    expectUnauthorized(await get(url, 'Bearer '), MALFORMED);
    expectUnauthorized(await get(url, token), MALFORMED);
    expectUnauthorized(await get(url, `Bearer ${token} ${token}`), MALFORMED);
    expectUnauthorized(await get(url, 'Bearer two words'), MALFORMED);
    expectUnauthorized(await get(url, 'Bearer a,b'), MALFORMED);
    // Well formed (RFC 6750's b64token) but not accepted: whatever its shape, an invalid token.
    expectUnauthorized(await get(url, 'Bearer wrong'), INVALID);
    expectUnauthorized(await get(url, 'bearer wrong=='), INVALID);
    expectUnauthorized(await get(url, `Bearer ${token.slice(0, -1)}`), INVALID);
    expectUnauthorized(await get(url, 'Bearer not-a-token'), INVALID);
    expectUnauthorized(await get(url, `Bearer ${WELL_FORMED_UNKNOWN_TOKEN}`), INVALID);
    expectUnauthorized(await get(url, `Bearer ${oneCharacterOff(token)}`), INVALID);
  });

  it.each(STAGING_ROUTES)('%s never reads a token from the query string: 401 without the header, 400 with it', async (url) => {
    expectUnauthorized(await get(`${url}?access_token=${token}`), MISSING);
    const withHeader = await get(`${url}?access_token=${token}`, `Bearer ${token}`);
    expect(withHeader.statusCode).toBe(400);
    expect(withHeader.json()).toEqual({ error: "unknown query parameter 'access_token'" });
  });

  it.each(STAGING_ROUTES)('%s guards HEAD like GET', async (url) => {
    const refused = await get(url, undefined, 'HEAD');
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    expect((await get(url, `Bearer ${token}`, 'HEAD')).statusCode).toBe(200);
  });

  it.each(STAGING_ROUTES)('%s lets a CORS preflight through without a token', async (url) => {
    const response = await app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(response.statusCode).not.toBe(401);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('guards only the staging routes', async () => {
    expect((await get('/health/live')).statusCode).toBe(200);
    expect((await get('/no/such/route')).statusCode).toBe(404);
  });

  it('spends no query on a malformed header and exactly one lookup on a well-formed bad token', async () => {
    const lookups = vi.spyOn(app.repositories.apiTokens, 'findTokenOwner');
    let queries = 0;
    const countQuery = () => queries++;
    database.pool?.on('acquire', countQuery);
    try {
      for (const header of [undefined, 'Basic abc', 'Bearer', `Bearer ${token}x`, 'Bearer cs_short']) {
        expectUnauthorized(await get('/users/profile', header));
      }
      expect(lookups).not.toHaveBeenCalled();
      if (database.pool) expect(queries).toBe(0);

      expectUnauthorized(await get('/users/profile', `Bearer ${WELL_FORMED_UNKNOWN_TOKEN}`));
      expect(lookups).toHaveBeenCalledTimes(1);
      if (database.pool) expect(queries).toBe(1);
    } finally {
      database.pool?.off('acquire', countQuery);
      lookups.mockRestore();
    }
  });

  it('refuses a token as soon as it is revoked', async () => {
    const { token: shortLived, id } = await insertApiToken(database.db, (await insertUser(database.db)).id);
    expect((await get('/users/profile', `Bearer ${shortLived}`)).statusCode).toBe(200);
    expect(await app.repositories.apiTokens.revokeToken(id)).toBe(true);
    expectUnauthorized(await get('/users/profile', `Bearer ${shortLived}`), INVALID);
    expect((await get('/users/profile', `Bearer ${token}`)).statusCode).toBe(200);
    expect(tokenId).not.toBe(id);
  });

  it('answers 503, not 401 or 500, when the database cannot look the token up', async () => {
    const gone = await openDatabase({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/gone',
      PGLITE_DATA_DIR: 'memory://',
      DB_POOL_MAX: 1,
      DB_STATEMENT_TIMEOUT_MS: 1000,
      DB_CONNECT_TIMEOUT_MS: 500,
    });
    const unready = await buildTestApp(gone);
    try {
      const response = await unready.inject({ url: '/users/profile', headers: { authorization: `Bearer ${token}` } });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBeDefined();
      expect(Object.keys(response.json<object>())).toEqual(['error']);
    } finally {
      await unready.close();
      await gone.close();
    }
  });
});
