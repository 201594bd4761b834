import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** `src` and `href` attributes of the page's scripts and stylesheets. */
const assetUrls = (html: string) => [...html.matchAll(/<(?:script[^>]*src|link[^>]*href)="([^"]+)"/g)].map((match) => match[1]!);

describe('GET /docs with the security headers on', () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database, { BASE_URL: 'https://api.example.com', STAGING_URL: 'https://staging.example.com' });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('serves the Swagger UI page', async () => {
    const response = await app.inject('/docs');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('<div id="swagger-ui">');
  });

  it('serves every script and stylesheet the page loads, from its own origin', async () => {
    const urls = assetUrls((await app.inject('/docs')).body);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) {
      expect(url, 'assets come from this server').toMatch(/^\/docs\/static\//);
      const response = await app.inject(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      if (url.endsWith('.js')) expect(response.headers['content-type'], url).toMatch(/javascript/);
      if (url.endsWith('.css')) expect(response.headers['content-type'], url).toMatch(/^text\/css/);
    }
  });

  it('gives the page a policy that allows its own scripts, styles and data: images, and calls to both servers', async () => {
    const policy = String((await app.inject('/docs')).headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/script-src[^;]*unsafe/);
    expect(policy).toContain("style-src 'self' 'unsafe-inline'");
    expect(policy).toContain("img-src 'self' data:");
    expect(policy).toContain("connect-src 'self' https://api.example.com https://staging.example.com");
    expect(policy).toContain("frame-ancestors 'none'");
  });

  it('names the page after the service, with its own wordmark and favicon instead of the framework\'s', async () => {
    const html = (await app.inject('/docs')).body;
    expect(html).toContain('<title>Reward Campaign Service API</title>');
    expect(html).not.toMatch(/favicon-(16|32)x\d+\.png|Swagger UI<\/title>/);
    const favicon = await app.inject('/docs/static/theme/favicon.svg');
    expect(favicon.statusCode).toBe(200);
    expect(favicon.headers['content-type']).toMatch(/^image\/svg\+xml/);

    const initializer = (await app.inject('/docs/static/swagger-initializer.js')).body;
    const wordmark = /img\.src = 'data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)'/.exec(initializer)?.[1];
    expect(wordmark, 'the top bar logo is replaced by an inline image').toBeDefined();
    expect(Buffer.from(wordmark!, 'base64').toString('utf8')).toContain('>Reward Campaign Service API</text>');
  });

  it('serves the document the page reads: /openapi.json, the address the README gives', async () => {
    const initializer = (await app.inject('/docs/static/swagger-initializer.js')).body;
    expect(initializer).toMatch(/"urls":\s*\[\s*\{\s*"url":\s*"\/openapi\.json"/);
    const response = await app.inject('/openapi.json');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ openapi: '3.1.0' });
  });

  it('gives API answers a policy that allows nothing, and the other security headers', async () => {
    const response = await app.inject('/campaigns');
    expect(response.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });
});
