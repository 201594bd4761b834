import { createServer, type Server } from 'node:http';
import type { IndexerStatus } from './status.js';

/**
 * The indexer's own small HTTP server (it serves no API): GET /metrics (Prometheus), GET
 * /health/live, GET /health/ready (200 when every chain is within its lag budget, else 503, with
 * each core's lag either way, and why a core is over its budget). Plain node:http: three fixed answers need no framework.
 */
export async function startStatusServer(status: IndexerStatus, expectedCores: number, host: string, port: number): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const send = (code: number, type: string, body: string) => {
      response.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    if (request.method !== 'GET') return send(405, 'application/json', JSON.stringify({ error: 'only GET is served' }));
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      status.registry.metrics().then((text) => send(200, status.registry.contentType, text), (error: Error) => send(500, 'application/json', JSON.stringify({ error: error.message })));
      return;
    }
    if (path === '/health/live') return send(200, 'application/json', JSON.stringify({ status: 'ok' }));
    if (path === '/health/ready') {
      const { ready, cores } = status.readiness(expectedCores);
      return send(ready ? 200 : 503, 'application/json', JSON.stringify({ status: ready ? 'ready' : 'lagging', cores }));
    }
    send(404, 'application/json', JSON.stringify({ error: `no route ${path}` }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { port: number };
  return {
    server,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
