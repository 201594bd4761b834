import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The docs page as a person sees it: Debian's Chromium opens /docs on a listening server, with the
 * security headers on, and every operation of the API document must be listed on the rendered
 * page. The operations are read from /openapi.json, so the test grows with the API.
 */
const chromiumFound = hasChromium('docs e2e test');

interface Document {
  paths: Record<string, Record<string, { operationId: string }>>;
}

describe.skipIf(!chromiumFound)('GET /docs in Chromium', () => {
  let database: TestDatabase;
  let app: App;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let baseUrl: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database);
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    ({ browser, close: closeBrowser } = await launchChromium());
  }, 60_000);
  afterAll(async () => {
    await closeBrowser?.();
    await app?.close();
    await database?.close();
  });

  it('lists every operation of the API document, with no blocked asset or script error', async () => {
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Document;
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operationId: operation.operationId })),
    );
    // The eighteen JSON operations of the public API (docs/public-api.md), its getSignatures, the history, the two leaderboards and the event stream.
    expect(operations).toHaveLength(23);

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
    const documentsLoaded: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
      const { pathname } = new URL(response.url());
      if (pathname === '/openapi.json' || pathname.startsWith('/docs/json') || pathname.startsWith('/docs/yaml')) documentsLoaded.push(pathname);
    });
    // Offline: anything but this server (a CDN, a font, a validator badge) is refused and reported.
    await page.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith(`${baseUrl}/`) || url.startsWith('data:')) return route.continue();
      problems.push(`left the server: ${url}`);
      return route.abort();
    });

    const response = await page.goto(`${baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });

    const rendered = [];
    for (const block of await page.locator('.opblock').all()) {
      rendered.push({
        method: (await block.locator('.opblock-summary-method').innerText()).trim().toLowerCase(),
        path: await block.locator('.opblock-summary-path').getAttribute('data-path'),
        operationId: (await block.locator('.opblock-summary-operation-id').innerText()).trim(),
      });
    }
    for (const operation of operations) expect(rendered, `${operation.method} ${operation.path}`).toContainEqual(operation);
    // The service's own name in the tab and in the top bar, not the framework's logo.
    expect(await page.title()).toBe('Reward Campaign Service API');
    expect(await page.locator('.info .title').innerText()).toContain('Reward Campaign Service API');
    const wordmark = page.locator('.topbar a.link img');
    await wordmark.waitFor({ timeout: 10_000 });
    const source = (await wordmark.getAttribute('src')) ?? '';
    expect(source).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(source.split(',')[1] ?? '', 'base64').toString('utf8')).toContain('Reward Campaign Service API');
    expect(await page.locator('.topbar a.link svg').count(), "Swagger's own logo is gone").toBe(0);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/\/theme\/favicon\.svg$/);
    // The document at the address the README gives, named so in the top bar, never the plugin's /docs/json.
    expect(documentsLoaded).toEqual(['/openapi.json']);
    expect(await page.locator('.topbar select option:checked').innerText()).toBe('/openapi.json');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
