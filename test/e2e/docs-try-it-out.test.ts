import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { prepareDemo } from '../../src/demo.js';
import { buildTestApp } from '../helpers/app.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { hasData } from '../helpers/has-data.js';

/**
 * A newcomer's first click: on the demo data, Chromium opens /docs, authorizes with the demo token,
 * and on every operation of the API document clicks "Try it out" and "Execute" without typing
 * anything. Each answer must be a 200 with data. The operations are read from /openapi.json, so the
 * test grows with the API.
 */
const chromiumFound = hasChromium('docs "Try it out" e2e test');

interface Document {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> }>>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function authorize(page: Page, token: string): Promise<void> {
  await page.locator('.auth-wrapper .authorize').click();
  const dialog = page.locator('.modal-ux');
  await dialog.locator('input').fill(token);
  await dialog.locator('button.authorize').click();
  await dialog.locator('button.close-modal').click();
}

async function tryItOut(page: Page, block: Locator, url: (text: string) => boolean): Promise<{ status: number; body: unknown; shown: string }> {
  await block.locator('.opblock-summary').click();
  await block.locator('.try-out__btn').click();
  const answered = page.waitForResponse((response) => url(response.url()) && response.request().method() === 'GET');
  await block.locator('.execute').click();
  const response = await answered;
  const shown = await block.locator('.live-responses-table .response .response-col_status').first().innerText();
  return { status: response.status(), body: await response.json(), shown: shown.trim() };
}

describe.skipIf(!chromiumFound)('GET /docs: "Try it out" on the demo data', () => {
  let database: TestDatabase;
  let app: App;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let baseUrl: string;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    token = await prepareDemo(database, pino({ level: 'silent' }));
    // Both servers of the document are this one, so the page's calls reach it.
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    app = await buildTestApp(database, { BASE_URL: baseUrl, STAGING_URL: baseUrl });
    await app.listen({ port, host: '127.0.0.1' });
    ({ browser, close: closeBrowser } = await launchChromium());
  }, 120_000);
  afterAll(async () => {
    await closeBrowser?.();
    await app?.close();
    await database?.close();
  });

  it('answers 200 with data on every operation, with nothing typed in', async () => {
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Document;
    // The JSON operations: Swagger UI cannot show a Server-Sent Events stream (GET /events), which never ends.
    // GET /signatures needs a transaction on a chain: test/protocol/signatures.test.ts asks for them on anvil.
    const operationIds = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods)
        .filter((operation) => operation.responses['200']?.content?.['application/json'] && operation.operationId !== 'getSignatures')
        .map((operation) => operation.operationId),
    );
    expect(operationIds).toHaveLength(21);

    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    // The first operation is on the first screen, above the fold.
    const first = await page.locator('.opblock').first().boundingBox();
    expect(first!.y + first!.height).toBeLessThan(900);
    await authorize(page, token);

    const answers: Record<string, { status: number; shown: string; data: boolean }> = {};
    for (const operationId of operationIds) {
      const block = page.locator(`.opblock:has(.opblock-summary-operation-id:text-is("${operationId}"))`);
      const path = (await block.locator('.opblock-summary-path').getAttribute('data-path')) ?? '';
      const prefix = new RegExp(`^${baseUrl}${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?|$)`);
      const { status, body, shown } = await tryItOut(page, block, (url) => prefix.test(url));
      answers[operationId] = { status, shown, data: hasData(body) };
      await block.locator('.opblock-summary').click();
    }
    const expected = Object.fromEntries(operationIds.map((operationId) => [operationId, { status: 200, shown: '200', data: true }]));
    expect(answers).toEqual(expected);
    await page.close();
  }, 180_000);
});
