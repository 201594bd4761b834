import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { DatabaseHandle } from '../db/client.js';
import { serviceUnavailable } from '../errors.js';
import { ref } from '../schemas/typebox.js';
import { ErrorResponse } from '../schemas/common.js';
import type { ReplicaLag } from '../services/replica-lag.js';
import type { StartupStatus } from '../startup.js';

/** How long readiness waits for `SELECT 1` before calling the database unavailable. */
const READY_TIMEOUT_MS = 1000;

/** Orchestrators probe often and from few addresses: probes never count against a rate limit. */
const PROBE = { rateLimit: false } as const;

const HealthStatus = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });

/** Liveness and readiness probes for orchestrators; kept out of the public API document. */
export const healthRoutes: FastifyPluginAsync<{ database: DatabaseHandle; startup: StartupStatus; replicaLag?: ReplicaLag }> = async (
  app,
  { database, startup, replicaLag },
) => {
  app.get(
    '/health/live',
    // An overloaded process is busy, not dead: restarting it would only make things worse.
    { schema: { hide: true, response: { 200: HealthStatus } }, config: { ...PROBE, overloadExempt: true } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/ready',
    { schema: { hide: true, response: { 200: HealthStatus, 503: ref(ErrorResponse) } }, config: PROBE },
    async (request) => {
      const pending = startup.pending();
      if (pending !== undefined) throw serviceUnavailable(`starting: ${pending}`);
      try {
        await database.ping(READY_TIMEOUT_MS);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw serviceUnavailable('database is not reachable');
      }
      const lagging = await replicaLag?.tooFarBehind().catch(() => 'the read replica is not reachable');
      if (lagging !== undefined) throw serviceUnavailable(lagging);
      // Until then the activity routes would wait for the load (seconds with a week of busy claims).
      if (!(await app.claimWindows.whenLoaded(READY_TIMEOUT_MS))) throw serviceUnavailable('starting: loading claim volumes');
      return { status: 'ok' as const };
    },
  );
};
