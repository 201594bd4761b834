import type { FastifyInstance, FastifyRequest, onRequestHookHandler, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import { keptBytes } from '../json/kept-bytes.js';
import { entityTag } from '../entity-tag.js';
import type { ResponseCompression, ResponseEncoding } from './external/compression.js';
import { INDEXED_BLOCKS_HEADER } from './freshness.js';

/**
 * The answers of the public routes (`config: { publicCache: true }`), kept in memory for `ttlMs`
 * after the database produced them: a popular page is then served many times per database query.
 * A hit answers in the route's onRequest hook with the stored bytes and ETag, before validation and
 * the handler; the public-cache hook still adds Cache-Control and answers If-None-Match with 304.
 * Keys are the request target as sent (path and query). Only 200s are kept; errors never are. A
 * kept answer goes out with the Indexed-Blocks header it was produced with and an `Age`; one asked
 * with `minBlock` is kept under its own URL, so it is served again only to requests that ask for
 * that block or an answer including it.
 *
 * The staleness this allows (at most `ttlMs`, RESPONSE_CACHE_TTL_MS) is documented in docs/design.md: the
 * answers depend on time (isActive, trending windows) and on the data, both of which move on.
 *
 * Expired answers go as soon as the next answer is kept, not when `maxBytes` runs out: what the
 * cache holds is what was answered within the last `ttlMs`. Kept until room was needed, the answers
 * of requests that do not come again within the TTL (a crawl over campaign ids, the detail pages of
 * an hour ago) stayed resident up to all of `maxBytes`, bytes nobody would be served.
 *
 * Not lru-cache, as the other caches are: every answer lives `ttlMs`, so the oldest are also the
 * first to expire, and a Map in insertion order lets them go in one pass as the next answer is kept,
 * with no timer per entry and no reordering per hit.
 *
 * With compression on, an entry also keeps its body as compressed for the first client that got it
 * in an encoding, and serves that to the next ones: compressing costs more than serving a kept
 * answer, and within the TTL a popular answer goes out in the same encoding many times. The
 * compressed bytes count in `maxBytes` and go with their entry.
 */
interface Entry {
  body: Buffer;
  etag: string;
  keptAt: number;
  expiresAt: number;
  /** The Indexed-Blocks header the answer was sent with: what its data reflects, whenever it is served. */
  indexedBlocks: string | undefined;
  /** The Link header the answer was sent with (a list's next page). */
  link: string | undefined;
  encoded?: Partial<Record<ResponseEncoding, Buffer>>;
}

export const responseCache = fp<{ ttlMs: number; maxBytes: number; now?: () => number; compression?: ResponseCompression }>(
  (app: FastifyInstance, { ttlMs, maxBytes, now = Date.now, compression }) => {
    // Its hook must come before the one that keeps compressed bodies, which sees what it sent.
    if (compression && !app.hasPlugin('compression')) throw new Error('the response cache keeps compressed bodies only after the compression plugin');
    const entries = new Map<string, Entry>();
    let bytes = 0;
    const served = new WeakSet<FastifyRequest>();
    if (app.metricsRegistry) {
      new Gauge({
        name: 'response_cache_kept_bytes',
        help: 'Bytes of answers the response cache keeps (RESPONSE_CACHE_MAX_MB at most): those answered within RESPONSE_CACHE_TTL_MS',
        registers: [app.metricsRegistry],
        collect() {
          this.set(bytes);
        },
      });
    }

    const remove = (key: string, entry: Entry) => {
      entries.delete(key);
      bytes -= entry.body.length + (entry.encoded?.br?.length ?? 0) + (entry.encoded?.gzip?.length ?? 0);
    };

    const serveFromCache: onRequestHookHandler = (request, reply, done) => {
      const entry = request.method === 'GET' ? entries.get(request.url) : undefined;
      if (!entry) return done();
      if (entry.expiresAt <= now()) {
        remove(request.url, entry);
        return done();
      }
      served.add(request);
      // What the kept answer reflects, and how long ago the database produced it (RFC 9111 Age).
      if (entry.indexedBlocks === undefined) void reply.removeHeader(INDEXED_BLOCKS_HEADER);
      else void reply.header(INDEXED_BLOCKS_HEADER, entry.indexedBlocks);
      void reply.header('age', String(Math.floor((now() - entry.keptAt) / 1000)));
      if (entry.link !== undefined) void reply.header('link', entry.link);
      // The public cache then gives it the weak ETag and Vary of a compressed answer, and
      // @fastify/compress leaves a body with a Content-Encoding alone.
      const encoding = compression?.encodingFor(request, entry.body.length);
      const encoded = encoding === undefined ? undefined : entry.encoded?.[encoding];
      if (encoded) void reply.header('content-encoding', encoding);
      void reply.header('etag', entry.etag).type('application/json; charset=utf-8').send(encoded ?? entry.body);
    };

    const keepAnswer: onSendHookHandler = (request, reply, payload, done) => {
      if (request.method !== 'GET' || reply.statusCode !== 200 || served.has(request)) return done(null, payload);
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
      if (length > maxBytes / 4) return done(null, payload);
      const body = keptBytes(payload);
      const etag = entityTag(body);
      const previous = entries.get(request.url);
      if (previous) remove(request.url, previous);
      // Map order is insertion order, and every answer is kept for the same time, so the oldest come
      // first: the expired ones go, then as many more as make room.
      const at = now();
      for (const [key, entry] of entries) {
        if (entry.expiresAt > at && bytes + body.length <= maxBytes) break;
        remove(key, entry);
      }
      const [indexedBlocks, link] = [reply.getHeader(INDEXED_BLOCKS_HEADER), reply.getHeader('link')];
      entries.set(request.url, {
        body,
        etag,
        keptAt: at,
        expiresAt: at + ttlMs,
        indexedBlocks: typeof indexedBlocks === 'string' ? indexedBlocks : undefined,
        link: typeof link === 'string' ? link : undefined,
      });
      bytes += body.length;
      void reply.header('etag', etag);
      done(null, body);
    };

    /** After @fastify/compress: the body it compressed for this entry, kept for the next request in that encoding. */
    const keepEncoded: onSendHookHandler = (request, reply, payload, done) => {
      const encoding = reply.getHeader('content-encoding');
      if (request.method !== 'GET' || reply.statusCode !== 200 || (encoding !== 'br' && encoding !== 'gzip') || !Buffer.isBuffer(payload)) {
        return done(null, payload);
      }
      const entry = entries.get(request.url);
      // Only a compression of the body the entry keeps (the public cache made its ETag weak), once,
      // and only while there is room.
      if (!entry || entry.encoded?.[encoding] || reply.getHeader('etag') !== `W/${entry.etag}` || bytes + payload.length > maxBytes) {
        return done(null, payload);
      }
      const kept = keptBytes(payload);
      entry.encoded = { ...entry.encoded, [encoding]: kept };
      bytes += kept.length;
      done(null, kept);
    };

    app.addHook('onRoute', (route) => {
      if (route.config?.publicCache !== true) return;
      route.onRequest = [...[route.onRequest ?? []].flat(), serveFromCache];
      // Before the public-cache hook, which reads the ETag set here instead of hashing the body again;
      // keepEncoded last, after the compression plugin's hook (added to the route before this one).
      route.onSend = [keepAnswer, ...[route.onSend ?? []].flat(), ...(compression ? [keepEncoded] : [])];
    });
  },
  { name: 'response-cache', dependencies: ['public-cache'] },
);

