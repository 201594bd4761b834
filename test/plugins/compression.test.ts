import zlib, { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { entityTag } from '../../src/entity-tag.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import { generateDataset } from '../../src/seed/dataset.js';

const STRONG_ETAG = /^"[A-Za-z0-9_-]{27}"$/;
const WEAK_ETAG = /^W\/"[A-Za-z0-9_-]{27}"$/;

/** The body a client gets after undoing the answer's Content-Encoding. */
function decoded(response: LightMyRequestResponse): Buffer {
  const encoding = response.headers['content-encoding'];
  if (encoding === undefined) return response.rawPayload;
  if (encoding === 'gzip') return gunzipSync(response.rawPayload);
  if (encoding === 'br') return brotliDecompressSync(response.rawPayload);
  throw new Error(`unexpected Content-Encoding ${String(encoding)}`);
}

const varies = (response: LightMyRequestResponse) =>
  String(response.headers.vary ?? '')
    .toLowerCase()
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token === 'accept-encoding').length;

describe('compression', () => {
  let database: TestDatabase;
  let app: App;
  let detailUrl: string;
  // Five campaigns make a list answer of several kilobytes; `pageSize=0` answers only the total.
  const LIST = '/campaigns?tokenWhitelist=false';
  const SMALL = '/campaigns?pageSize=0';

  beforeAll(async () => {
    database = await createTestDatabase();
    const asset = (await insertToken(database.db)).address;
    let campaign = await insertCampaign(database.db, { incentives: [erc20Incentive(asset)] });
    for (let n = 0; n < 4; n++) campaign = await insertCampaign(database.db, { incentives: [erc20Incentive(asset)] });
    detailUrl = `/campaigns/${campaign.publicId}`;
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers });

  it('serves the test data in sizes on both sides of the default threshold', async () => {
    expect((await get(LIST)).rawPayload.length).toBeGreaterThan(4 * 1024);
    expect((await get(SMALL)).rawPayload.length).toBeLessThan(1024);
  });

  it.each([
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['*', 'gzip'],
    ['GZIP', 'gzip'],
  ])('Accept-Encoding: %s gets %s, decoding to exactly the uncompressed body', async (accept, encoding) => {
    const plain = await get(LIST);
    for (const url of [LIST, detailUrl, '/openapi.json']) {
      const identity = url === LIST ? plain : await get(url);
      const response = await get(url, { 'accept-encoding': accept });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-encoding'], url).toBe(encoding);
      expect(response.headers['content-type'], url).toBe('application/json; charset=utf-8');
      expect(response.rawPayload.length, url).toBeLessThan(identity.rawPayload.length);
      expect(decoded(response).equals(identity.rawPayload), url).toBe(true);
      expect(varies(response), url).toBe(1);
    }
  });

  it('gives a compressed answer the weak form of the uncompressed body\'s ETag, and the uncompressed one the strong form', async () => {
    const plain = await get(LIST);
    const compressed = await get(LIST, { 'accept-encoding': 'br' });
    expect(plain.headers.etag).toBe(entityTag(plain.rawPayload));
    expect(plain.headers.etag).toMatch(STRONG_ETAG);
    expect(compressed.headers.etag).toMatch(WEAK_ETAG);
    expect(compressed.headers.etag).toBe(`W/${plain.headers.etag}`);
    expect((await get(LIST, { 'accept-encoding': 'gzip' })).headers.etag).toBe(compressed.headers.etag);
  });

  it.each(['identity', 'compress', 'unknown-coding', 'gzip;q=0, br;q=0', '*;q=0', ''])(
    'sends Accept-Encoding: "%s" the body uncompressed, with its strong ETag, still varying on Accept-Encoding',
    async (accept) => {
      const plain = await get(LIST);
      const response = await get(LIST, { 'accept-encoding': accept });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.rawPayload.equals(plain.rawPayload)).toBe(true);
      expect(response.headers.etag).toBe(plain.headers.etag);
      expect(varies(response)).toBe(1);
    },
  );

  it('varies on Accept-Encoding on a large answer even to a client that sent none: a shared cache must not serve it to one that did', async () => {
    const response = await get(LIST);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(varies(response)).toBe(1);
  });

  it('leaves answers below COMPRESSION_MIN_BYTES uncompressed, without Vary and with a strong ETag', async () => {
    const response = await get(SMALL, { 'accept-encoding': 'gzip, br' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers.vary).toBeUndefined();
    expect(response.headers.etag).toMatch(STRONG_ETAG);
    expect(response.json()).toEqual({ campaigns: [], totalCampaigns: 5 });
  });

  it('honours X-No-Compression', async () => {
    const response = await get(LIST, { 'accept-encoding': 'br', 'x-no-compression': '1' });
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers.etag).toMatch(STRONG_ETAG);
  });

  it('answers If-None-Match with an empty 304 carrying the ETag and Vary its 200 would have, whichever tag form comes back', async () => {
    const plain = await get(LIST);
    const compressed = await get(LIST, { 'accept-encoding': 'br' });
    for (const tag of [compressed.headers.etag, plain.headers.etag]) {
      const response = await get(LIST, { 'accept-encoding': 'br', 'if-none-match': String(tag) });
      expect(response.statusCode, String(tag)).toBe(304);
      expect(response.rawPayload.length).toBe(0);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.headers.etag).toBe(compressed.headers.etag);
      expect(varies(response)).toBe(1);
      expect(response.headers['cache-control']).toBe('public, max-age=10');
    }
    const uncompressed = await get(LIST, { 'if-none-match': String(compressed.headers.etag) });
    expect(uncompressed.statusCode).toBe(304);
    expect(uncompressed.headers.etag).toBe(plain.headers.etag);
  });

  it.each(['br', 'gzip', 'gzip, br', 'identity', 'unknown-coding', '*', 'br;q=0'])(
    'gives a 304 the headers of its 200 for Accept-Encoding: %s',
    async (accept) => {
      const ok = await get(LIST, { 'accept-encoding': accept });
      const notModified = await get(LIST, { 'accept-encoding': accept, 'if-none-match': String(ok.headers.etag) });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.headers.etag).toBe(ok.headers.etag);
      expect(notModified.headers.vary).toBe(ok.headers.vary);
      expect(String(ok.headers.etag).startsWith('W/')).toBe(ok.headers['content-encoding'] !== undefined);
    },
  );

  it('answers HEAD as the uncompressed answer: no body, its length, its strong ETag, and Vary', async () => {
    const plain = await get(LIST);
    const head = await app.inject({ method: 'HEAD', url: LIST, headers: { 'accept-encoding': 'gzip, br' } });
    expect(head.statusCode).toBe(200);
    expect(head.rawPayload.length).toBe(0);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBe(String(plain.rawPayload.length));
    expect(head.headers.etag).toBe(plain.headers.etag);
    expect(varies(head)).toBe(1);
  });

  it('keeps errors small JSON envelopes, uncompressed', async () => {
    for (const url of [detailUrl.replace(/:[0-9]+$/, ':999999'), '/campaigns?pageSize=1000', '/no-such-route']) {
      const response = await get(url, { 'accept-encoding': 'gzip, br' });
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(response.headers['content-encoding'], url).toBeUndefined();
      expect(Object.keys(response.json()), url).toEqual(['error']);
    }
  });

  it('compresses the metrics text for a scraper that accepts gzip, and leaves the small health answers alone', async () => {
    const metrics = await get('/metrics', { 'accept-encoding': 'gzip' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-encoding']).toBe('gzip');
    expect(decoded(metrics).toString('utf8')).toMatch(/^# HELP /);
    for (const url of ['/health/live', '/health/ready']) {
      const response = await get(url, { 'accept-encoding': 'gzip, br' });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-encoding'], url).toBeUndefined();
      expect(response.json(), url).toBeTypeOf('object');
    }
  });

  it('compresses the docs page\'s large scripts and stylesheets, which are streamed from files', async () => {
    const html = (await get('/docs')).body;
    const assets = [...html.matchAll(/<(?:script[^>]*src|link[^>]*href)="([^"]+)"/g)].map((match) => match[1]!);
    let compressed = 0;
    for (const url of assets) {
      const plain = await get(url);
      const response = await get(url, { 'accept-encoding': 'br' });
      expect(response.statusCode, url).toBe(200);
      expect(decoded(response).equals(plain.rawPayload), url).toBe(true);
      if (plain.rawPayload.length >= 1024) {
        expect(response.headers['content-encoding'], url).toBe('br');
        compressed++;
      }
    }
    expect(compressed).toBeGreaterThanOrEqual(2);
  });

  it('adds Accept-Encoding to the Vary that CORS sets, once', async () => {
    const narrowed = await buildTestApp(database, { CORS_ORIGINS: 'https://app.example.com' });
    try {
      const response = await narrowed.inject({ url: LIST, headers: { origin: 'https://app.example.com', 'accept-encoding': 'br' } });
      expect(response.headers['content-encoding']).toBe('br');
      expect(String(response.headers.vary)).toMatch(/Origin/);
      expect(varies(response)).toBe(1);
    } finally {
      await narrowed.close();
    }
  });

  describe('with the response cache on', () => {
    let cached: App;
    let clock = new Date('2026-06-01T12:00:00.000Z');
    // @fastify/compress takes zlib's functions when it is registered: this app's compressions are counted.
    let brotli: MockInstance<typeof zlib.brotliCompressSync>;
    beforeAll(async () => {
      brotli = vi.spyOn(zlib, 'brotliCompressSync');
      cached = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '1000' }, undefined, { clock: () => clock });
    });
    afterAll(async () => {
      brotli.mockRestore();
      await cached.close();
    });
    const keptBytes = async () => Number(/^response_cache_kept_bytes (\d+)$/m.exec((await cached.inject('/metrics')).body)?.[1]);
    const inject = (url: string, headers: Record<string, string> = {}) => cached.inject({ url, headers });

    it('keeps the uncompressed body, and each encoding of it once one went out, and serves every client its own', async () => {
      const first = await inject(LIST, { 'accept-encoding': 'br' });
      const plain = await inject(LIST);
      expect(first.headers['content-encoding']).toBe('br');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(decoded(first).equals(plain.rawPayload)).toBe(true);
      expect(await keptBytes()).toBe(plain.rawPayload.length + first.rawPayload.length);

      const gzip = await inject(LIST, { 'accept-encoding': 'gzip' });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(decoded(gzip).equals(plain.rawPayload)).toBe(true);
      expect(await keptBytes()).toBe(plain.rawPayload.length + first.rawPayload.length + gzip.rawPayload.length);
      expect(brotli).toHaveBeenCalledTimes(1);

      // Hits in a kept encoding: the kept bytes, not compressed again, with the headers of a compressed answer.
      for (const [accept, encoding, sent] of [['br', 'br', first], ['gzip, br', 'br', first], ['gzip', 'gzip', gzip]] as const) {
        const again = await inject(LIST, { 'accept-encoding': accept });
        expect(again.headers['content-encoding'], accept).toBe(encoding);
        expect(again.rawPayload.equals(sent.rawPayload), accept).toBe(true);
        expect(again.headers['content-length'], accept).toBe(String(sent.rawPayload.length));
        expect(again.headers.etag, accept).toBe(`W/${plain.headers.etag}`);
        expect(varies(again), accept).toBe(1);
        expect(again.headers['content-type'], accept).toBe('application/json; charset=utf-8');
      }
      expect(await keptBytes()).toBe(plain.rawPayload.length + first.rawPayload.length + gzip.rawPayload.length);
      expect(brotli).toHaveBeenCalledTimes(1);

      // Hits for clients that take no encoding, or ask for none, still get the uncompressed body.
      for (const headers of [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'br', 'x-no-compression': '1' }] as Record<string, string>[]) {
        const identity = await inject(LIST, headers);
        expect(identity.headers['content-encoding']).toBeUndefined();
        expect(identity.rawPayload.equals(plain.rawPayload)).toBe(true);
        expect(identity.headers.etag).toBe(plain.headers.etag);
      }
      const head = await cached.inject({ method: 'HEAD', url: LIST, headers: { 'accept-encoding': 'br' } });
      expect(head.headers['content-encoding']).toBeUndefined();
      expect(head.headers['content-length']).toBe(String(plain.rawPayload.length));
    });

    it('answers If-None-Match from a kept encoding with an empty 304 without Content-Encoding', async () => {
      const compressed = await inject(LIST, { 'accept-encoding': 'br' });
      const notModified = await inject(LIST, { 'accept-encoding': 'br', 'if-none-match': String(compressed.headers.etag) });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.rawPayload.length).toBe(0);
      expect(notModified.headers['content-encoding']).toBeUndefined();
      expect(notModified.headers.etag).toBe(compressed.headers.etag);
      expect(varies(notModified)).toBe(1);
    });

    it('lets the compressed bodies go with their entry', async () => {
      clock = new Date(clock.getTime() + 1001);
      const small = await inject(SMALL, { 'accept-encoding': 'br' });
      expect(small.headers['content-encoding']).toBeUndefined();
      expect(await keptBytes()).toBe(small.rawPayload.length);
      const fresh = await inject(LIST, { 'accept-encoding': 'gzip' });
      const plain = await inject(LIST);
      expect(decoded(fresh).equals(plain.rawPayload)).toBe(true);
      expect(await keptBytes()).toBe(small.rawPayload.length + plain.rawPayload.length + fresh.rawPayload.length);
    });
  });

  it('never compresses with COMPRESSION_ENABLED=false, nor varies, and keeps strong ETags', async () => {
    const off = await buildTestApp(database, { COMPRESSION_ENABLED: 'false' });
    try {
      for (const url of [LIST, detailUrl, '/openapi.json', '/metrics']) {
        const response = await off.inject({ url, headers: { 'accept-encoding': 'gzip, br' } });
        expect(response.statusCode, url).toBe(200);
        expect(response.headers['content-encoding'], url).toBeUndefined();
        expect(response.headers.vary, url).toBeUndefined();
      }
      const list = await off.inject({ url: LIST, headers: { 'accept-encoding': 'br' } });
      expect(list.headers.etag).toBe(entityTag(list.rawPayload));
    } finally {
      await off.close();
    }
  });

  it('takes the threshold from COMPRESSION_MIN_BYTES, and never compresses an empty 304', async () => {
    const eager = await buildTestApp(database, { COMPRESSION_MIN_BYTES: '1' });
    const reluctant = await buildTestApp(database, { COMPRESSION_MIN_BYTES: '1000000' });
    try {
      const small = await eager.inject({ url: SMALL, headers: { 'accept-encoding': 'gzip' } });
      expect(small.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(decoded(small).toString('utf8'))).toEqual({ campaigns: [], totalCampaigns: 5 });
      const notModified = await eager.inject({ url: SMALL, headers: { 'accept-encoding': 'gzip', 'if-none-match': String(small.headers.etag) } });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.rawPayload.length).toBe(0);
      expect(notModified.headers['content-encoding']).toBeUndefined();
      const large = await reluctant.inject({ url: LIST, headers: { 'accept-encoding': 'gzip' } });
      expect(large.headers['content-encoding']).toBeUndefined();
      expect(large.headers.vary).toBeUndefined();
    } finally {
      await eager.close();
      await reluctant.close();
    }
  });
});

describe('brotli on answers of the demo data', () => {
  let database: TestDatabase;
  let app: App;
  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 60, claims: 200, seed: 3, now: new Date('2026-06-01T12:00:00.000Z') }));
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  // Brotli's quality 1 sends more bytes than gzip's level 1 below 32 KiB (the quality is chosen by size).
  it.each([[5], [10], [12], [20], [50]])('sends no more bytes than gzip for a list of %i campaigns', async (pageSize) => {
    const url = `/campaigns?tokenWhitelist=false&pageSize=${pageSize}`;
    const br = await app.inject({ url, headers: { 'accept-encoding': 'br' } });
    const gzip = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    expect([br.headers['content-encoding'], gzip.headers['content-encoding']]).toEqual(['br', 'gzip']);
    expect(decoded(br).equals(decoded(gzip))).toBe(true);
    expect(br.rawPayload.length).toBeLessThanOrEqual(gzip.rawPayload.length);
  });
});
