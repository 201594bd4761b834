import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign } from '../helpers/factories.js';

const STRONG_ETAG = /^"[A-Za-z0-9_-]{27}"$/;

describe('ETag, 304 and Cache-Control on the public routes', () => {
  let database: TestDatabase;
  let app: App;
  let detailUrl: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const campaign = await insertCampaign(database.db);
    detailUrl = `/campaigns/${campaign.publicId}`;
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const publicUrls = () => ['/campaigns', detailUrl];

  it('sends a strong ETag and Cache-Control: public, max-age=10 on success', async () => {
    for (const url of publicUrls()) {
      const response = await app.inject(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers.etag, url).toMatch(STRONG_ETAG);
      expect(response.headers['cache-control'], url).toBe('public, max-age=10');
    }
  });

  it('gives the same body the same ETag, and another body another', async () => {
    const first = await app.inject('/campaigns');
    const again = await app.inject('/campaigns');
    const other = await app.inject('/campaigns?tokenWhitelist=false');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers a matching If-None-Match with 304, no body, and the cache headers', async () => {
    for (const url of publicUrls()) {
      const { etag } = (await app.inject(url)).headers;
      const response = await app.inject({ url, headers: { 'if-none-match': String(etag) } });
      expect(response.statusCode, url).toBe(304);
      expect(response.body, url).toBe('');
      expect(response.headers.etag, url).toBe(etag);
      expect(response.headers['cache-control'], url).toBe('public, max-age=10');
    }
  });

  it('matches weakly, within a list, and on *', async () => {
    const { etag } = (await app.inject(detailUrl)).headers;
    for (const header of [`W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await app.inject({ url: detailUrl, headers: { 'if-none-match': header } });
      expect(response.statusCode, header).toBe(304);
    }
  });

  it('answers 200 with the body when the tag no longer matches', async () => {
    const response = await app.inject({ url: detailUrl, headers: { 'if-none-match': '"stale"' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: detailUrl.slice('/campaigns/'.length) });
  });

  it('answers HEAD with the same headers', async () => {
    const get = await app.inject(detailUrl);
    const head = await app.inject({ method: 'HEAD', url: detailUrl });
    expect(head.statusCode).toBe(200);
    expect(head.headers.etag).toBe(get.headers.etag);
    expect(head.headers['cache-control']).toBe('public, max-age=10');
  });

  it('never marks an error cacheable: 400, 404', async () => {
    const unknownId = detailUrl.replace(/:[0-9]+$/, ':999999');
    for (const url of ['/campaigns?pageSize=1000', unknownId, '/campaigns/not-an-id']) {
      const response = await app.inject({ url, headers: { 'if-none-match': '*' } });
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(response.headers['cache-control'], url).toBeUndefined();
      expect(response.headers.etag, url).toBeUndefined();
    }
  });

  it('leaves routes that did not opt in alone', async () => {
    const response = await app.inject('/health/live');
    expect(response.headers['cache-control']).toBeUndefined();
    expect(response.headers.etag).toBeUndefined();
  });

  it('takes max-age from CACHE_MAX_AGE_S', async () => {
    const configured = await buildTestApp(database, { CACHE_MAX_AGE_S: '45' });
    try {
      expect((await configured.inject('/campaigns')).headers['cache-control']).toBe('public, max-age=45');
    } finally {
      await configured.close();
    }
  });
});
