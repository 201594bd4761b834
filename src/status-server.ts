import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** What a worker process (the indexer, the price job) reports: its metrics and whether it is ready. */
export interface StatusReport {
  registry: Registry;
  /** `ready` sets the status code (200 or 503); `body` is the JSON answer either way. */
  readiness(): { ready: boolean; body: Record<string, unknown> };
}

export interface StatusServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/**
 * A worker's own small HTTP server (it serves no API): GET /metrics (Prometheus), GET /health/live,
 * GET /health/ready. Plain node:http: three fixed answers need no framework.
 */
export async function serveStatus(report: StatusReport, host: string, port: number): Promise<StatusServer> {
  const server = createServer((request, response) => {
    const send = (code: number, type: string, body: string) => {
      response.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    if (request.method !== 'GET') return send(405, 'application/json', JSON.stringify({ error: 'only GET is served' }));
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      report.registry.metrics().then(
        (text) => send(200, report.registry.contentType, text),
        (error: Error) => send(500, 'application/json', JSON.stringify({ error: error.message })),
      );
      return;
    }
    if (path === '/health/live') return send(200, 'application/json', JSON.stringify({ status: 'ok' }));
    if (path === '/health/ready') {
      const { ready, body } = report.readiness();
      return send(ready ? 200 : 503, 'application/json', JSON.stringify(body));
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
