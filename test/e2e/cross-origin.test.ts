import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertApiToken, insertUser } from '../helpers/factories.js';

/**
 * A frontend on another origin, as a newcomer would write it: a page served from
 * http://localhost:<port> calls the API on http://127.0.0.1:<other port> with the default
 * configuration (no CORS_ORIGINS). Chromium enforces CORS, so the page reads the public answer only
 * if the API allows it, and must not read a staging answer even with a valid token.
 */
const chromiumFound = hasChromium('cross-origin e2e test');

/** The page's script: one public call with a header that needs a preflight, one staging call. */
function frontendPage(apiUrl: string, token: string): string {
  return `<!doctype html><html><head><title>frontend</title></head><body><script>
window.results = (async () => {
  const out = {};
  const response = await fetch(${JSON.stringify(`${apiUrl}/campaigns?pageSize=1`)}, { headers: { 'X-Request-Id': 'from-the-frontend' } });
  const body = await response.json();
  out.public = { status: response.status, total: body.totalCampaigns, etag: response.headers.get('etag'), requestId: response.headers.get('x-request-id') };
  try {
    await fetch(${JSON.stringify(`${apiUrl}/users/profile`)}, { headers: { Authorization: ${JSON.stringify(`Bearer ${token}`)} } });
    out.staging = 'read';
  } catch (error) {
    out.staging = 'refused: ' + error.name;
  }
  return out;
})();
</script></body></html>`;
}

describe.skipIf(!chromiumFound)('a page on another origin calls the API in Chromium', () => {
  let database: TestDatabase;
  let app: App;
  let frontend: Server;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let apiUrl: string;
  let frontendUrl: string;
  /** The preflights the API answered, with their status (browsers do not report them to the page). */
  const preflights: [string, number][] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database, {}, (app) => {
      app.addHook('onResponse', async (request, reply) => {
        if (request.method === 'OPTIONS') preflights.push([request.url, reply.statusCode]);
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const { token } = await insertApiToken(database.db, (await insertUser(database.db)).id);

    const page = frontendPage(apiUrl, token);
    frontend = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(page));
    await new Promise<void>((resolve) => frontend.listen(0, '127.0.0.1', resolve));
    // Another host name and port: a different origin from the API's.
    frontendUrl = `http://localhost:${(frontend.address() as AddressInfo).port}/`;
    ({ browser, close: closeBrowser } = await launchChromium());
  }, 60_000);
  afterAll(async () => {
    await closeBrowser?.();
    await new Promise((resolve) => (frontend ? frontend.close(resolve) : resolve(undefined)));
    await app?.close();
    await database?.close();
  });

  it('reads a public answer and its exposed headers, and is refused the staging one', async () => {
    const expected = (await (await fetch(`${apiUrl}/campaigns?pageSize=1`)).json()) as { totalCampaigns: number };
    const page = await browser.newPage();

    await page.goto(frontendUrl);
    expect(new URL(page.url()).origin).not.toBe(new URL(apiUrl).origin);
    const results = await page.evaluate(() => (globalThis as unknown as { results: Promise<unknown> }).results);

    expect(results).toEqual({
      public: { status: 200, total: expected.totalCampaigns, etag: expect.stringMatching(/^"/) as unknown, requestId: 'from-the-frontend' },
      staging: 'refused: TypeError',
    });
    // Both calls send a header that needs permission first: the browser asked, the API answered; the
    // staging preflight gets no Access-Control-* headers, so the browser refused the call itself.
    expect(preflights).toEqual([
      ['/campaigns?pageSize=1', 204],
      ['/users/profile', 204],
    ]);
    await page.close();
  }, 60_000);
});
