import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertApiToken, insertUser } from '../helpers/factories.js';

interface LogLine {
  level: number;
  msg?: string;
  req?: { url?: string };
  headers?: Record<string, unknown>;
  reason?: string;
  upstream?: { headers?: Record<string, unknown> };
}
const WARN = 40;

/** What the service logs around bearer tokens, read back from the production logger. */
describe('logging of bearer credentials', () => {
  let database: TestDatabase;
  let app: App;
  let token: string;
  let output: string[];

  beforeAll(async () => {
    database = await createTestDatabase();
    const user = await insertUser(database.db);
    ({ token } = await insertApiToken(database.db, user.id));
    output = [];
    const logger = createLogger({ LOG_LEVEL: 'trace' }, { write: (line: string) => output.push(line) });
    app = await buildTestApp(
      database,
      {},
      (instance) => {
        // A careless route that logs the raw headers, as a debugging session might.
        instance.get('/test/log-headers', async (request) => {
          request.log.info({ headers: request.headers }, 'headers as received');
          request.log.info({ req: { headers: request.headers } }, 'headers under req');
          request.log.info({ upstream: { headers: request.headers } }, 'headers one level down');
          return { ok: true };
        });
      },
      { logger },
    );
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const lines = () => output.map((line) => JSON.parse(line) as LogLine);

  it('never writes a token, valid or not, from the header or the query string', async () => {
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const attempts = [
      { url: '/users/profile', headers: { authorization: `Bearer ${token}` } },
      { url: '/campaigns/accesslists', headers: { authorization: `Bearer ${wrong}` } },
      { url: '/users/profile', headers: { authorization: `Basic ${token}` } },
      { url: `/users/profile?access_token=${token}`, headers: {} },
      { url: `/campaigns/accesslists?access_token=${token}`, headers: { authorization: `Bearer ${token}` } },
      { url: '/test/log-headers', headers: { authorization: `Bearer ${token}`, cookie: 'session=secret-cookie' } },
    ];
    output.length = 0;
    const statuses = [];
    for (const attempt of attempts) statuses.push((await app.inject(attempt)).statusCode);
    expect(statuses).toEqual([200, 401, 401, 401, 400, 200]);

    const text = output.join('');
    expect(text).not.toContain(token);
    expect(text).not.toContain(wrong);
    expect(text).not.toContain(token.slice(3));
    expect(text).not.toContain('secret-cookie');

    // The lines that would have carried them are there, masked.
    const logged = lines();
    expect(logged.filter((line) => line.req?.url?.includes('access_token=cs_[redacted]'))).not.toHaveLength(0);
    expect(logged.find((line) => line.msg === 'headers as received')?.headers).toMatchObject({
      authorization: '[redacted]',
      cookie: '[redacted]',
    });
    expect(logged.find((line) => line.msg === 'headers one level down')?.upstream?.headers).toMatchObject({
      authorization: '[redacted]',
      cookie: '[redacted]',
    });
    // Under `req`, the request serializer keeps no headers at all.
    expect(logged.find((line) => line.msg === 'headers under req')?.req).not.toHaveProperty('headers');
  });

  it('logs each refused attempt at warn level', async () => {
    output.length = 0;
    await app.inject({ url: '/users/profile' });
    await app.inject({ url: '/users/profile', headers: { authorization: 'Bearer two words' } });
    await app.inject({ url: '/users/profile', headers: { authorization: 'Bearer nonsense' } });
    await app.inject({ url: '/users/profile', headers: { authorization: `Bearer cs_${'x'.repeat(43)}` } });
    const warnings = lines().filter((line) => line.level === WARN);
    expect(warnings.map(({ msg, reason }) => ({ msg, reason }))).toEqual([
      { msg: 'bearer authentication refused', reason: 'missing' },
      { msg: 'bearer authentication refused', reason: 'malformed' },
      { msg: 'bearer authentication refused', reason: 'not a token of this service' },
      { msg: 'bearer authentication refused', reason: 'unknown or revoked' },
    ]);
  });
});
