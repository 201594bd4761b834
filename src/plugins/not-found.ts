import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import { envelope } from '../errors.js';
import { MAX_PARAM_LENGTH } from '../http-limits.js';

/**
 * 404 for an unknown path, 405 (with `Allow`) for a known path asked with the wrong method.
 * Fastify answers both with 404, so a second router learns every route's path and tells them apart.
 */
export const notFound = fp(
  (app: FastifyInstance) => {
    const knownPaths = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
    const methodsByPath = new Map<string, Set<string>>();

    app.addHook('onRoute', (route) => {
      // A catch-all (CORS preflight's `OPTIONS *`) says nothing about which paths exist.
      if (route.url === '*') return;
      const methods = methodsByPath.get(route.url) ?? new Set<string>();
      if (methods.size === 0) {
        methodsByPath.set(route.url, methods);
        knownPaths.on('GET', route.url, () => undefined, { path: route.url });
      }
      for (const method of [route.method].flat()) methods.add(method);
    });

    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?', 1)[0] ?? '/';
      const match = knownPaths.find('GET', path);
      const allowed = match ? methodsByPath.get((match.store as { path: string }).path) : undefined;
      if (allowed && !allowed.has(request.method)) {
        return reply
          .code(405)
          .header('allow', [...allowed].sort().join(', '))
          .send(envelope(`method ${request.method} is not allowed on ${path}; use ${[...allowed].sort().join(' or ')}`));
      }
      return reply.code(404).send(envelope(`route ${request.method} ${truncate(path)} not found`));
    });
  },
  { name: 'not-found' },
);

const truncate = (path: string) => (path.length > 100 ? `${path.slice(0, 100)}...` : path);
