import { serveStatus, type StatusServer } from '../status-server.js';
import type { IndexerStatus } from './status.js';

/**
 * The indexer's status server: GET /metrics, GET /health/live, GET /health/ready (200 when every
 * chain is within its lag budget, else 503, with each core's lag either way, and why a core is over
 * its budget).
 */
export function startStatusServer(status: IndexerStatus, expectedCores: number, host: string, port: number): Promise<StatusServer> {
  return serveStatus(
    {
      registry: status.registry,
      readiness: () => {
        const { ready, cores } = status.readiness(expectedCores);
        return { ready, body: { status: ready ? 'ready' : 'lagging', cores } };
      },
    },
    host,
    port,
  );
}
