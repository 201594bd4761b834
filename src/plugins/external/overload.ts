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
/** under-pressure's default: one sample per second. */
const SAMPLE_INTERVAL_MS = 1000;

/**
 * @fastify/under-pressure: when the event loop lags (or memory passes a limit), new requests get
 * 503 with Retry-After at once instead of queueing behind work the process cannot keep up with,
 * so a load balancer sends them elsewhere. Readiness answers 503 too; liveness does not, since
 * restarting a process that is merely busy would make things worse.
 */
export const overloadProtection = fp<OverloadLimits>(
  async (app: FastifyInstance, limits) => {
    // The samples taken while the server started include its own start-up work (compiling the
    // routes' schemas blocks the loop for a second or more): not load. They are ignored for the
    // first two sampling intervals after the server listens, so its first requests are served.
    let startupSamplesUntil = 0;
    app.addHook('onListen', async () => {
      startupSamplesUntil = Date.now() + 2 * SAMPLE_INTERVAL_MS;
    });
    await app.register(underPressure, {
      sampleInterval: SAMPLE_INTERVAL_MS,
      maxEventLoopDelay: limits.maxEventLoopDelayMs,
      maxEventLoopUtilization: limits.maxEventLoopUtilization,
      // Per sampling interval, not since start: a burst an hour ago says nothing about now.
      eventLoopUtilizationMode: 'interval',
      maxHeapUsedBytes: limits.maxHeapMb * MB,
      maxRssBytes: limits.maxRssMb * MB,
      // A rejection goes through the one error handler: the envelope and Retry-After.
      pressureHandler: async (request: FastifyRequest, _reply, type, value) => {
        if (request.routeOptions.config.overloadExempt === true || Date.now() < startupSamplesUntil) return;
        request.log.warn({ pressure: type, value }, 'overloaded: request refused');
        throw serviceUnavailable('the server is overloaded; retry shortly');
      },
    });
  },
  { name: 'overload-protection' },
);
