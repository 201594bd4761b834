import type { FastifyInstance, FastifyRequest, onRequestHookHandler, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import { keptBytes } from '../services/kept-bytes.js';
import { entityTag } from '../entity-tag.js';

/**
 * The answers of the public routes (`config: { publicCache: true }`), kept in memory for `ttlMs`
 * after the database produced them: a popular page is then served many times per database query.
 * A hit answers in the route's onRequest hook with the stored bytes and ETag, before validation and
 * the handler; the public-cache hook still adds Cache-Control and answers If-None-Match with 304.
 * Keys are the request target as sent (path and query). Only 200s are kept; errors never are.
 *
 * The staleness this allows (at most `ttlMs`, 1 s by default) is documented in docs/design.md: the
 * answers depend on time (isActive, trending windows) and on the data, both of which move on.
 *
 * Expired answers go as soon as the next answer is kept, not when `maxBytes` runs out: what the
 * cache holds is what was answered within the last `ttlMs`. Kept until room was needed, the answers
 * of requests that do not come again within the TTL (a crawl over campaign ids, the detail pages of
 * an hour ago) stayed resident up to all of `maxBytes`, bytes nobody would be served.
 */
interface Entry {
  body: Buffer;
  etag: string;
  expiresAt: number;
}

export const responseCache = fp<{ ttlMs: number; maxBytes: number; now?: () => number }>(
  (app: FastifyInstance, { ttlMs, maxBytes, now = Date.now }) => {
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
      bytes -= entry.body.length;
    };

    const serveFromCache: onRequestHookHandler = (request, reply, done) => {
      const entry = request.method === 'GET' ? entries.get(request.url) : undefined;
      if (!entry) return done();
      if (entry.expiresAt <= now()) {
        remove(request.url, entry);
        return done();
      }
      served.add(request);
      void reply.header('etag', entry.etag).type('application/json; charset=utf-8').send(entry.body);
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
      entries.set(request.url, { body, etag, expiresAt: at + ttlMs });
      bytes += body.length;
      void reply.header('etag', etag);
      done(null, body);
    };

    app.addHook('onRoute', (route) => {
      if (route.config?.publicCache !== true) return;
      route.onRequest = [...[route.onRequest ?? []].flat(), serveFromCache];
      // Before the public-cache hook, which reads the ETag set here instead of hashing the body again.
      route.onSend = [keepAnswer, ...[route.onSend ?? []].flat()];
    });
  },
  { name: 'response-cache', dependencies: ['public-cache'] },
);

