import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryError, parseRetryAfter, WebhookSender } from '../../src/webhooks/sender.js';

/** The webhook sender against real local HTTP servers: what it follows, reads and waits for. */
describe('WebhookSender', () => {
  const servers: Server[] = [];
  const senders: WebhookSender[] = [];

  const serve = async (handler: Parameters<typeof createServer>[1]) => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  };
  const sender = (timeoutMs = 5000) => {
    const created = new WebhookSender({ timeoutMs, allowPrivate: true });
    senders.push(created);
    return created;
  };
  afterEach(async () => {
    for (const created of senders.splice(0)) created.close();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('follows no redirect: a 3xx is the answer', async () => {
    let reached = 0;
    const elsewhere = await serve((_request, response) => {
      reached++;
      response.writeHead(204).end();
    });
    const url = await serve((_request, response) => response.writeHead(302, { location: elsewhere }).end());
    expect(await sender().post(url, {}, '{}')).toEqual({ status: 302, retryAfterSeconds: undefined });
    expect(reached).toBe(0);
  });

  it('reads a bounded part of an answer: a body without end does not hold it to the time-out', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const url = await serve((_request, response) => {
      response.writeHead(200);
      const write = () => {
        while (response.write(chunk));
        response.once('drain', write);
      };
      write();
    });
    expect(await sender(30_000).post(url, {}, '{}')).toEqual({ status: 200, retryAfterSeconds: undefined });
  });

  it('gives up on a receiver that does not answer within the time-out', async () => {
    const url = await serve(() => undefined);
    const attempt = sender(300).post(url, {}, '{}');
    await expect(attempt).rejects.toThrow(DeliveryError);
    await expect(attempt).rejects.toThrow('no answer within 300 ms');
  });

  it('sends the headers and body it is given, and reads Retry-After', async () => {
    let seen: { headers: Record<string, unknown>; body: string } | undefined;
    const url = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        seen = { headers: request.headers, body };
        response.writeHead(429, { 'retry-after': '30' }).end();
      });
    });
    expect(await sender().post(url, { 'webhook-id': '7-9' }, '{"a":1}')).toEqual({ status: 429, retryAfterSeconds: 30 });
    expect(seen!.body).toBe('{"a":1}');
    expect(seen!.headers['webhook-id']).toBe('7-9');
    expect(seen!.headers['content-length']).toBe('7');
  });

  it('parses Retry-After as seconds or an HTTP date, and nothing else', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sat, 28 Nov 2026 12:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Sat, 28 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
