import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { buildTestApp } from '../helpers/app.js';

/**
 * Requests that are refused before a handler runs must cost the database nothing: a flood of bad
 * requests cannot then exhaust the pool that good ones need. The app runs on a pool whose every
 * checkout is counted (the pool points at a closed port, so a checkout that slips through shows
 * as a 503 as well).
 */
describe('requests refused without touching the database', () => {
  let database: DatabaseHandle;
  let app: App;
  let checkouts = 0;

  beforeAll(async () => {
    database = await openDatabase({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing-listens-here',
      PGLITE_DATA_DIR: 'memory://',
      DB_POOL_MAX: 2,
      DB_STATEMENT_TIMEOUT_MS: 1000,
      DB_CONNECT_TIMEOUT_MS: 500,
    });
    // pool.query checks out through pool.connect, so this counts every query too.
    const pool = database.pool!;
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
    pool.connect = ((...args: unknown[]) => {
      checkouts++;
      return connect(...args);
    }) as typeof pool.connect;
    app = await buildTestApp(database, { RATE_LIMIT_MAX: '100000' });
  });
  beforeEach(() => {
    checkouts = 0;
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const VALID_ID = '8453:0x00000000000000000000000000000000000c0000:1001';
  const WELL_FORMED_TOKEN = `cs_${'A'.repeat(43)}`;

  it('a valid request does reach the database (the counter works)', async () => {
    const response = await app.inject('/campaigns');
    expect(response.statusCode).toBe(503);
    expect(checkouts).toBeGreaterThan(0);
  });

  it.each([
    '/campaigns?pageSize=101',
    '/campaigns?pagesize=10',
    '/campaigns?page=1e2',
    '/campaigns?owner=0xnothex',
    '/campaigns?page=1&page=2',
    '/campaigns?targetContract=0x0000000000000000000000000000000000000001',
    `/campaigns?budgetAccount=${Array.from({ length: 51 }, () => '0x0000000000000000000000000000000000000001').join(',')}`,
    '/campaigns/not-an-id',
    `/campaigns/${VALID_ID}?unknown=1`,
    '/campaigns/8453:0x1:1',
    '/reward-kit/trending?sortBy=7d',
    '/reward-kit/trending?claimantAddress=%00',
    '/explore/contracts?timePeriod=1y',
    '/explore/contracts?actionChainIds=a,b',
  ])('invalid input: %s', async (url) => {
    const response = await app.inject(url);
    expect(response.statusCode).toBe(400);
    expect(checkouts).toBe(0);
  });

  it.each([
    ['GET', '/nowhere'],
    ['GET', '/campaigns/8453:0x00000000000000000000000000000000000c0000:1001/extra'],
    ['POST', '/campaigns'],
    ['DELETE', '/users/profile'],
  ] as const)('unknown route or method: %s %s', async (method, url) => {
    const response = await app.inject({ method, url });
    expect([404, 405]).toContain(response.statusCode);
    expect(checkouts).toBe(0);
  });

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a token', 'Bearer '],
    ['a token of the wrong shape', 'Bearer not-a-token'],
    ['a token with a stray character', `Bearer ${WELL_FORMED_TOKEN.slice(0, -1)}!`],
    ['two tokens', `Bearer ${WELL_FORMED_TOKEN} ${WELL_FORMED_TOKEN}`],
  ])('bad bearer token (%s) on both staging routes', async (_case, authorization) => {
    for (const url of ['/users/profile', '/campaigns/accesslists']) {
      const response = await app.inject({ url, headers: authorization === undefined ? {} : { authorization } });
      expect(response.statusCode, url).toBe(401);
    }
    expect(checkouts).toBe(0);
  });

  it('a well-formed token is looked up once (only the database knows it), and an invalid query then costs nothing more', async () => {
    const response = await app.inject({ url: '/users/profile?nope=1', headers: { authorization: `Bearer ${WELL_FORMED_TOKEN}` } });
    expect(response.statusCode).toBe(503);
    expect(checkouts).toBe(1);
  });
});
