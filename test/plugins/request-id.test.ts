import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids and logs', () => {
  let database: TestDatabase;
  let app: App;
  const logLines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    // The app's own logger, writing JSON lines to memory instead of stdout.
    const logger = createLogger({ LOG_LEVEL: 'info' }, { write: (line: string) => void logLines.push(line) });
    app = await buildApp(testConfig(), { database, logger });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('keeps a safe incoming X-Request-Id and echoes it', async () => {
    const response = await app.inject({ url: '/health/live', headers: { 'x-request-id': 'edge-7f3a.b_c-9' } });
    expect(response.headers['x-request-id']).toBe('edge-7f3a.b_c-9');
  });

  it.each([
    ['too long', 'a'.repeat(65)],
    ['with spaces', 'abc def'],
    ['with markup', '<script>alert(1)</script>'],
    ['with a JSON quote', 'abc"def'],
    ['empty', ''],
  ])('replaces an unsafe incoming id (%s) with a fresh UUID', async (_case, unsafe) => {
    const response = await app.inject({ url: '/health/live', headers: { 'x-request-id': unsafe } });
    expect(response.headers['x-request-id']).toMatch(UUID);
  });

  it('generates a distinct id per request when none is sent', async () => {
    const first = await app.inject('/health/live');
    const second = await app.inject('/health/live');
    expect(first.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).toMatch(UUID);
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
  });

  it('echoes the id on errors too: 400, 404 and 405', async () => {
    for (const request of [
      { url: '/campaigns?pageSize=1000' },
      { url: '/no-such-route' },
      { url: '/campaigns', method: 'DELETE' as const },
    ]) {
      const response = await app.inject({ ...request, headers: { 'x-request-id': 'trace-on-error' } });
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.headers['x-request-id'], request.url).toBe('trace-on-error');
    }
  });

  it('logs JSON lines carrying the request id, and never the bearer token or cookie', async () => {
    logLines.length = 0;
    await app.inject({
      url: '/campaigns?pageSize=1000',
      headers: { 'x-request-id': 'log-check-1', authorization: 'Bearer secret-token-value', cookie: 'session=secret-cookie' },
    });
    const entries = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((entry) => entry.reqId === 'log-check-1')).toBe(true);
    const text = logLines.join('\n');
    expect(text).not.toContain('secret-token-value');
    expect(text).not.toContain('secret-cookie');
  });
});
