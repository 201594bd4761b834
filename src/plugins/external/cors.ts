import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import { MAX_PARAM_LENGTH } from '../../http-limits.js';

/** Headers a browser script may read: caching, freshness, tracing and the rate limit budget. */
const EXPOSED_HEADERS = ['ETag', 'Age', 'Indexed-Blocks', 'X-Request-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];

/**
 * Headers a script may send: the bearer token of the staging routes, revalidation, its own request
 * id, and the Last-Event-ID an EventSource sends when it reconnects to GET /events.
 */
const ALLOWED_HEADERS = ['Authorization', 'If-None-Match', 'X-Request-Id', 'Last-Event-ID'];

/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

type Origin = FastifyCorsOptions['origin'];

/**
 * CORS_ORIGINS as configured: `undefined` when unset, `[]` for `none`, `['*']` for any origin, or a
 * list of origins.
 */
export interface CorsPolicyOptions {
  origins: string[] | undefined;
}

/**
 * Which origins may read which answers:
 * - the public operations serve public, on-chain data, so by default any page may read them
 *   (`Access-Control-Allow-Origin: *`, as PostgREST and most public read APIs do); CORS_ORIGINS
 *   narrows that to its list;
 * - the staging operations (routes with `config.staging`) answer per-user data, so only origins the
 *   operator lists in CORS_ORIGINS may read them; unset, none may;
 * - CORS_ORIGINS=none sends no CORS header at all (for a gateway that answers CORS itself: two
 *   Access-Control-Allow-Origin headers make a browser refuse the answer).
 * Credentials (cookies) are never allowed: bearer tokens travel in a header a script sets itself.
 */
export function corsOrigins(origins: string[] | undefined): { public: Origin; staging: Origin } {
  const listed: Origin = origins === undefined || origins.length === 0 ? false : origins.includes('*') ? '*' : origins;
  return { public: origins === undefined ? '*' : listed, staging: listed };
}

/**
 * @fastify/cors is registered with static options, never with a per-request delegator: with a
 * delegator it rebuilds its options on every request (a spread copy that then gains properties),
 * which on V8 makes a new hidden class per request; those live in the old generation, and under
 * load they would be most of what the server promotes, raising its peak RSS far past its target
 * (docs/design.md, "Keeping per-request garbage young"). The public policy is the registered one;
 * where the staging policy differs (CORS_ORIGINS unset: public `*`, staging closed), two hooks of this
 * plugin close the staging routes:
 * - preflights are answered in an onRequest hook, before any route (and its bearer
 *   authentication) runs: a browser never sends credentials on a preflight. A preflight matches
 *   @fastify/cors's catch-all `OPTIONS *` route, not the route it asks about, so the paths of the
 *   routes are kept in a second router to find which policy the preflight is for. A preflight for
 *   a staging route gets a 204 without any Access-Control-* header, as @fastify/cors answers an
 *   origin its list does not hold: the browser reads that as "not allowed";
 * - the actual answer is decided by its own route's config, never by that lookup: an onSend hook
 *   removes the permission from a staging route's answer.
 * An OPTIONS request that is no preflight is not CORS: it gets the 405 every other method gets.
 */
export const corsPolicy = fp<CorsPolicyOptions>(
  async (app: FastifyInstance, { origins }) => {
    const policy = corsOrigins(origins);
    if (policy.public === false && policy.staging === false) return;

    const publicOptions: FastifyCorsOptions = {
      origin: policy.public,
      methods: ['GET', 'HEAD', 'OPTIONS'],
      allowedHeaders: ALLOWED_HEADERS,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: PREFLIGHT_MAX_AGE_S,
      credentials: false,
    };
    // corsOrigins() only ever narrows the staging policy to nothing (CORS_ORIGINS unset).
    const stagingClosed = policy.staging === false;

    // The route options objects themselves: `config.staging` is set by an onRoute hook of the
    // staging scope, which runs after this one, so it is read when a preflight arrives.
    const knownRoutes = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
    const knownPaths = new Set<string>();
    app.addHook('onRoute', (route) => {
      // The catch-all says nothing about a path; a GET's HEAD twin has the same path and config.
      if (route.url === '*' || knownPaths.has(route.url)) return;
      knownPaths.add(route.url);
      knownRoutes.on('GET', route.url, () => undefined, route);
    });
    const isStagingPath = (url: string) => {
      const store = knownRoutes.find('GET', url.split('?', 1)[0] ?? '/')?.store as { config?: { staging?: boolean } } | undefined;
      return store?.config?.staging === true;
    };

    // Registered before @fastify/cors, so it runs first.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.method === 'OPTIONS') {
        const isPreflight = Boolean(request.headers.origin) && Boolean(request.headers['access-control-request-method']);
        if (!isPreflight) {
          reply.callNotFound();
          return;
        }
        if (stagingClosed && isStagingPath(request.url)) {
          reply.code(204).send();
          return;
        }
      }
      done();
    });

    if (stagingClosed) {
      app.addHook('onSend', (request, reply, payload, done) => {
        if (request.routeOptions.config.staging === true) {
          reply.removeHeader('access-control-allow-origin');
          reply.removeHeader('access-control-expose-headers');
        }
        done(null, payload);
      });
    }

    await app.register(cors, publicOptions);
  },
  { name: 'cors-policy' },
);
