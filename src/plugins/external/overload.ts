import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { serviceUnavailable } from '../../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answer even when the process is overloaded: liveness probes and metrics scrapes. */
    overloadExempt?: boolean;
  }
}

export interface OverloadLimits {
  /** Mean event loop delay (ms) over a sampling second; 0 = not checked. */
  maxEventLoopDelayMs: number;
  /** Event loop utilization 0..1; 0 = not checked. */
  maxEventLoopUtilization: number;
  maxHeapMb: number;
  maxRssMb: number;
}

const MB = 1024 * 1024;

/**
 * @fastify/under-pressure: when the event loop lags (or memory passes a limit), new requests get
 * 503 with Retry-After at once instead of queueing behind work the process cannot keep up with,
 * so a load balancer sends them elsewhere. Readiness answers 503 too; liveness does not, since
 * restarting a process that is merely busy would make things worse.
 */
export const overloadProtection = fp<OverloadLimits>(
  async (app: FastifyInstance, limits) => {
    await app.register(underPressure, {
      maxEventLoopDelay: limits.maxEventLoopDelayMs,
      maxEventLoopUtilization: limits.maxEventLoopUtilization,
      // Per sampling interval, not since start: a burst an hour ago says nothing about now.
      eventLoopUtilizationMode: 'interval',
      maxHeapUsedBytes: limits.maxHeapMb * MB,
      maxRssBytes: limits.maxRssMb * MB,
      // A rejection goes through the one error handler: the envelope and Retry-After.
      pressureHandler: async (request: FastifyRequest, _reply, type, value) => {
        if (request.routeOptions.config.overloadExempt === true) return;
        request.log.warn({ pressure: type, value }, 'overloaded: request refused');
        throw serviceUnavailable('the server is overloaded; retry shortly');
      },
    });
  },
  { name: 'overload-protection' },
);
