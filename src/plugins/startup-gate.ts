import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { serviceUnavailable } from '../errors.js';
import type { StartupStatus } from '../startup-status.js';

/**
 * Until the start-up work is done (migrations applied), the routes of the scope this is
 * registered in answer 503 with Retry-After: an API call against a schema that is not there yet
 * would otherwise fail as a 500, or answer from an older schema.
 */
export const refuseUntilStarted = fp<{ startup: StartupStatus }>(
  (app: FastifyInstance, { startup }) => {
    app.addHook('onRequest', (_request, _reply, done) => {
      const pending = startup.pending();
      done(pending === undefined ? undefined : serviceUnavailable(`the service is starting: ${pending}; retry shortly`));
    });
  },
  { name: 'refuse-until-started' },
);
