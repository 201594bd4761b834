import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { serviceUnavailable } from '../errors.js';
import type { ReplicaLag } from './replica-lag.js';

/**
 * While the read replica lags more than DB_READ_MAX_LAG_MS, the routes of the scope this is
 * registered in answer 503 with Retry-After instead of data that old; readiness says the same, so
 * that a load balancer sends the traffic to a replica of the service that reads a fresher standby.
 */
export const refuseWhileReplicaLags = fp<{ lag: ReplicaLag }>(
  (app: FastifyInstance, { lag }) => {
    app.addHook('onRequest', async () => {
      const reason = await lag.tooFarBehind();
      if (reason !== undefined) throw serviceUnavailable(`${reason}; retry shortly`);
    });
  },
  { name: 'refuse-while-replica-lags' },
);
