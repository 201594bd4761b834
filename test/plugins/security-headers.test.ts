import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { HELMET_OPTIONS, headersSetBy } from '../../src/plugins/external/security-headers.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** What helmet sets when it runs on a real response, the way it ran per request before. */
function helmetOnARealResponse(): Record<string, string> {
  const response = new ServerResponse(new IncomingMessage(new Socket()));
  let failure: unknown;
  helmet(HELMET_OPTIONS)(response.req, response, (error?: unknown) => {
    failure = error;
  });
  expect(failure).toBeUndefined();
  return Object.fromEntries(Object.entries(response.getHeaders()).map(([name, value]) => [name, String(value)]));
}

describe('security headers', () => {
  let database: TestDatabase;
  let app: App;
  const expected = helmetOnARealResponse();

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('reads from helmet exactly the headers it sets on a response', () => {
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(10);
    expect(headersSetBy(helmet(HELMET_OPTIONS))).toEqual(expected);
  });

  it('fails loudly when the middleware fails or does not finish at once', () => {
    expect(() => headersSetBy((_request, _response, next) => next(new Error('bad directive')))).toThrow('bad directive');
    expect(() => headersSetBy(() => undefined)).toThrow(/did not finish synchronously/);
  });

  it.each([
    ['an answer', '/campaigns', 200],
    ['a refused request', '/campaigns?sortBy=nonsense', 400],
    ['an unknown route', '/nowhere', 404],
    ['a campaign that does not exist', '/campaigns/1:0x0000000000000000000000000000000000000001:1', 404],
  ])('sends every one of them with %s', async (_name, url, status) => {
    const response = await app.inject(url);
    expect(response.statusCode).toBe(status);
    for (const [name, value] of Object.entries(expected)) expect(response.headers[name], name).toBe(value);
  });
});
