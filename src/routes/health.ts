import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { DatabaseHandle } from '../db/client.js';
import { RETRY_AFTER_SECONDS } from '../errors.js';
import type { ReplicaLag } from '../plugins/replica-lag.js';
import type { StartupStatus } from '../startup-status.js';

/** How long readiness waits for `SELECT 1` before calling the database unavailable. */
const READY_TIMEOUT_MS = 1000;

/** Orchestrators probe often and from few addresses: probes never count against a rate limit. */
const PROBE = { rateLimit: false } as const;

const HealthStatus = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });

/** Each part readiness waits for, and where it stands. */
const ReadinessChecks = Type.Object(
  {
    startup: Type.String({ description: '`done`, or the start-up work still pending (migrations, demo data, waiting for the database)' }),
    database: Type.String({ description: '`ok`, `unreachable`, or `not checked` while start-up is pending' }),
    replica: Type.String({ description: '`ok`, `none` without a read replica, or how far behind it is' }),
    claimVolumes: Type.String({ description: '`loaded` or `loading`' }),
  },
  { additionalProperties: false },
);
const Ready = Type.Object({ status: Type.Literal('ok'), checks: ReadinessChecks }, { additionalProperties: false });
/** Without `checks` when the server refused before checking (overloaded, shutting down). */
const NotReady = Type.Object({ error: Type.String(), checks: Type.Optional(ReadinessChecks) }, { additionalProperties: false });

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

  // Every part is checked and reported; the first one not ready is the error (in this order).
  app.get(
    '/health/ready',
    { schema: { hide: true, response: { 200: Ready, 503: NotReady } }, config: PROBE },
    async (request, reply) => {
      const pending = startup.pending();
      const [database_, replica, claimVolumes] = await Promise.all([
        pending !== undefined
          ? ('not checked' as const)
          : database.ping(READY_TIMEOUT_MS).then(
              () => 'ok' as const,
              (error: unknown) => {
                request.log.warn({ err: error }, 'readiness check failed');
                return 'unreachable' as const;
              },
            ),
        replicaLag ? replicaLag.tooFarBehind().then((lagging) => lagging ?? 'ok', () => 'the read replica is not reachable') : 'none',
        // Until then the activity routes would wait for the load (seconds with a week of busy claims).
        app.claimWindows.whenLoaded(pending !== undefined ? 0 : READY_TIMEOUT_MS).then((loaded) => (loaded ? 'loaded' : 'loading')),
      ]);
      const checks = { startup: pending ?? 'done', database: database_, replica, claimVolumes };
      const error =
        pending !== undefined
          ? `starting: ${pending}`
          : database_ !== 'ok'
            ? 'database is not reachable'
            : replica !== 'ok' && replica !== 'none'
              ? replica
              : claimVolumes !== 'loaded'
                ? 'starting: loading claim volumes'
                : undefined;
      if (error === undefined) return { status: 'ok' as const, checks };
      // A state, not a fault: a warning, as every other refusal.
      request.log.warn({ statusCode: 503, reason: error }, 'request refused');
      return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send({ error, checks });
    },
  );
};
