import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { serviceUnavailable } from '../errors.js';

/** How often connections that have become idle are closed while the server drains. */
const IDLE_SWEEP_MS = 100;

/**
 * Shutdown as clients and load balancers need it:
 *
 * - Requests that arrive while the server closes (on a kept-alive connection, or before a load
 *   balancer has noticed) get a 503 in the envelope with `Retry-After`, so the client retries
 *   another replica. Fastify's own `return503OnClosing` answers in another shape and skips the
 *   hooks, so the app turns it off and answers here.
 * - In-flight requests finish. Their connections then become idle, and are closed as soon as they
 *   do: Node closes idle connections only once, when closing starts, and would otherwise wait out
 *   each one's keep-alive timeout, far past SHUTDOWN_GRACE_MS.
 */
export const refuseWhileClosing = fp(
  (app: FastifyInstance) => {
    let closing = false;
    let idleSweep: NodeJS.Timeout | undefined;

    app.addHook('preClose', (done) => {
      closing = true;
      idleSweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS).unref();
      done();
    });
    app.addHook('onClose', (_app, done) => {
      clearInterval(idleSweep);
      done();
    });

    app.addHook('onRequest', (_request, _reply, done) => {
      // Fastify has already marked the response `Connection: close`.
      done(closing ? serviceUnavailable('the server is shutting down; retry shortly') : undefined);
    });
  },
  { name: 'refuse-while-closing' },
);
