import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A message as a receiver got it, and whether the official Standard Webhooks library verified it. */
export interface ReceivedMessage {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
  /** When it arrived (epoch ms). */
  receivedAt: number;
  /** What verifying said when it refused. */
  refusal?: string;
}

/** How the receiver answers a message: a status (and headers, after `delayMs`), or nothing at all (a hung receiver). */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A webhook receiver on 127.0.0.1: each message verified with the official `standardwebhooks`
 * package and the secret the test gives it, then answered as `answer` says (default 204).
 */
export class WebhookReceiver {
  readonly messages: ReceivedMessage[] = [];
  answer: (message: ReceivedMessage) => Answer = () => ({ status: 204 });
  secret: string | undefined;
  private server: Server | undefined;
  private readonly hung = new Set<ServerResponse>();

  async listen(port = 0): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const message: ReceivedMessage = { id: String(request.headers['webhook-id']), headers: request.headers, body, verified: false, receivedAt: Date.now() };
        try {
          new Webhook(this.secret!).verify(body, request.headers as Record<string, string>);
          message.verified = true;
        } catch (error) {
          message.refusal = (error as Error).message;
        }
        this.messages.push(message);
        const answer = this.answer(message);
        if (answer === 'hang') {
          this.hung.add(response);
          return;
        }
        const send = () => response.writeHead(answer.status, answer.headers).end();
        if (answer.delayMs === undefined) send();
        else setTimeout(send, answer.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  /** The messages' ids in the order they came, the first of each id only (a retry repeats it). */
  get firstIds(): string[] {
    return [...new Set(this.messages.map((message) => message.id))];
  }

  async until(predicate: (messages: ReceivedMessage[]) => boolean, timeoutMs = 15_000): Promise<void> {
    const started = Date.now();
    while (!predicate(this.messages)) {
      if (Date.now() - started > timeoutMs) throw new Error(`receiver: condition not met within ${timeoutMs} ms; ${this.messages.length} messages received`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    for (const response of this.hung) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
