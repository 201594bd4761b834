import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Reads from a raw socket until the server closes it; returns what it sent. */
async function readUntilClosed(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'close');
  return Buffer.concat(chunks).toString('utf8');
}

describe('graceful shutdown', () => {
  let database: TestDatabase;
  let app: App;
  let releaseSlowRequest: () => void = () => undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    const released = new Promise<void>((resolve) => {
      releaseSlowRequest = resolve;
    });
    app = await buildTestApp(database, {}, (app) => {
      // A request that stays in flight until the test lets it finish.
      app.get('/test/slow', { schema: { hide: true } }, async () => {
        await released;
        return { finished: true };
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    releaseSlowRequest();
    await app.close();
    await database.close();
  });

  it('finishes the request in flight, and answers one arriving during shutdown with 503 in the envelope', async () => {
    const { port } = app.server.address() as AddressInfo;

    // In flight before the shutdown starts.
    const inFlight = fetch(`http://127.0.0.1:${port}/test/slow`);
    await new Promise((resolve) => setTimeout(resolve, 50));

    // A connection that has begun a request (so it is not idle and survives the close), as a
    // kept-alive connection from a load balancer would.
    const late = connect(port, '127.0.0.1');
    await once(late, 'connect');
    late.write('GET /campaigns HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const lateAnswer = readUntilClosed(late);
    // Let the server read those bytes first: until it has, the connection is idle to Node, and
    // closing begins by closing idle connections.
    await new Promise((resolve) => setTimeout(resolve, 50));

    const closed = app.close();
    // The server stops accepting connections once closing has begun.
    for (let i = 0; i < 100 && app.server.listening; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(app.server.listening).toBe(false);

    late.end('\r\n');
    const raw = await lateAnswer;
    const [head = '', body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head).toMatch(/\r\nretry-after: \d+\r\n/i);
    expect(head).toMatch(/\r\nconnection: close\r\n/i);
    expect(head).toMatch(/\r\nx-request-id: \S+\r\n/i);
    expect(JSON.parse(body ?? '')).toEqual({ error: 'the server is shutting down; retry shortly' });

    releaseSlowRequest();
    const finished = await inFlight;
    expect(finished.status).toBe(200);
    expect(await finished.json()).toEqual({ finished: true });
    await closed;
  });
});
