import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { DatabaseHandle } from '../db/client.js';
import { serviceUnavailable } from '../errors.js';
import { ref } from '../schemas/typebox.js';
import { ErrorResponse } from '../schemas/common.js';

/** How long readiness waits for `SELECT 1` before calling the database unavailable. */
const READY_TIMEOUT_MS = 1000;

/** Orchestrators probe often and from few addresses: probes never count against a rate limit. */
const PROBE = { rateLimit: false } as const;

const HealthStatus = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });

/** Liveness and readiness probes for orchestrators; kept out of the public API document. */
export const healthRoutes: FastifyPluginAsync<{ database: DatabaseHandle }> = async (app, { database }) => {
  app.get(
    '/health/live',
    { schema: { hide: true, response: { 200: HealthStatus } }, config: PROBE },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/ready',
    { schema: { hide: true, response: { 200: HealthStatus, 503: ref(ErrorResponse) } }, config: PROBE },
    async (request) => {
      try {
        await database.ping(READY_TIMEOUT_MS);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw serviceUnavailable('database is not reachable');
      }
      return { status: 'ok' as const };
    },
  );
};
