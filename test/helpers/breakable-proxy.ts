import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL whose connections can be broken silently: after `breakAll()`
 * the server side of every open connection is gone, but the client side stays open and looks idle
 * until the client writes, when it is reset. That is what a pool holds after a failover or a
 * network cut before it has read anything, without the race of pg_terminate_backend (whose notice
 * the pool may or may not have read by the time the next query is sent).
 */
export interface BreakableProxy {
  /** The URL to connect to instead of `targetUrl`. */
  url: string;
  breakAll(): void;
  close(): Promise<void>;
}

export async function startBreakableProxy(targetUrl: string): Promise<BreakableProxy> {
  const target = new URL(targetUrl);
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const forget = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    breakAll() {
      for (const pair of pairs) {
        pairs.delete(pair);
        pair.client.unpipe(pair.upstream);
        pair.upstream.unpipe(pair.client);
        pair.upstream.removeAllListeners('close');
        pair.upstream.destroy();
        // The client notices only when it next writes.
        pair.client.removeAllListeners('data');
        pair.client.once('data', () => pair.client.resetAndDestroy());
        pair.client.resume(); // unpipe paused it
      }
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
