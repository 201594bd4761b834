import type { FastifyInstance, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { entityTag } from '../entity-tag.js';
import { type ResponseCompression, varyOnAcceptEncoding } from './external/compression.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's successful answers are public and may be cached by browsers and shared caches
     * for CACHE_MAX_AGE_S seconds; they carry an ETag and answer If-None-Match with 304.
     */
    publicCache?: boolean;
  }
}

/**
 * HTTP caching for the routes that opt in with `config: { publicCache: true }`: only their 200
 * answers get `Cache-Control: public, max-age=N` and a strong `ETag` (the body's SHA-1, which
 * OpenSSL computes faster than any hash in JavaScript; weak when the answer goes out compressed); `If-None-Match` with a matching tag gets
 * `304 Not Modified` and no body. Errors carry neither header, so nobody caches them.
 *
 * The hook is attached to the opted-in routes only, so other routes pay nothing. A handler (or a
 * response cache) that already knows its ETag sets the `etag` header itself and no hash is computed.
 *
 * With compression on, it runs before @fastify/compress and gives the answer the Vary and ETag of
 * the encoding that will be sent (ResponseCompression says which and why), 304s included: a 304
 * carries what its 200 would have carried, and costs no compression.
 */
export const publicCache = fp<{ maxAgeSeconds: number; compression?: ResponseCompression }>(
  (app: FastifyInstance, { maxAgeSeconds, compression }) => {
    const hook = publicCacheHook(`public, max-age=${maxAgeSeconds}`, compression);
    app.addHook('onRoute', (route) => {
      if (route.config?.publicCache !== true) return;
      const existing = route.onSend === undefined ? [] : [route.onSend].flat();
      // First, so that it sees the handler's body: a HEAD route's own onSend hook replaces it with nothing.
      if (!existing.includes(hook)) route.onSend = [hook, ...existing];
    });
  },
  { name: 'public-cache' },
);

function publicCacheHook(cacheControl: string, compression: ResponseCompression | undefined): onSendHookHandler {
  return function addCacheHeaders(request, reply, payload, done) {
    if (reply.statusCode !== 200 || !(typeof payload === 'string' || Buffer.isBuffer(payload))) {
      done(null, payload);
      return;
    }
    let etag = reply.getHeader('etag');
    if (typeof etag !== 'string') etag = entityTag(payload);
    if (compression) {
      // Already encoded: the response cache sends a body it kept compressed for this client's encoding.
      const encoded = reply.hasHeader('content-encoding');
      const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
      if (encoded || compression.varies(bytes)) varyOnAcceptEncoding(reply);
      if ((encoded || compression.encodingFor(request, bytes) !== undefined) && !etag.startsWith('W/')) etag = `W/${etag}`;
    }
    reply.header('etag', etag);
    reply.header('cache-control', cacheControl);
    if (noneMatch(request.headers['if-none-match'], etag)) {
      reply.code(304);
      reply.removeHeader('content-encoding');
      done(null, '');
      return;
    }
    done(null, payload);
  };
}


/** RFC 9110 13.1.2: `*` or any listed tag, compared weakly (a `W/` prefix is ignored). */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = stripWeak(etag);
  return header.split(',').some((candidate) => stripWeak(candidate.trim()) === opaque);
}

const stripWeak = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
