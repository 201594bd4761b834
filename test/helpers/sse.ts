import { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';

/** One Server-Sent Event as a client parses it. */
export interface ReceivedEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * A client of an SSE stream over HTTP, parsing the stream as the HTML standard says (fields `id`,
 * `event`, `data`, comments ignored, a blank line ends an event). `events` grows as they arrive;
 * `comments` counts comment lines (heartbeats).
 */
export class SseClient {
  readonly events: ReceivedEvent[] = [];
  comments = 0;
  status = 0;
  headers: IncomingHttpHeaders | undefined;
  private request: ClientRequest | undefined;
  private done: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly headers_: Record<string, string> = {},
  ) {}

  /** Connects (a socket of its own); resolves with the status once the answer's head arrived. */
  async open(): Promise<number> {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      this.request = request(this.url, { headers: { accept: 'text/event-stream', ...this.headers_ }, agent: false }, resolve);
      this.request.on('error', reject);
      this.request.end();
    });
    this.status = response.statusCode ?? 0;
    this.headers = response.headers;
    response.setEncoding('utf8');
    if (this.status !== 200) {
      let body = '';
      for await (const chunk of response) body += chunk as string;
      this.events.push({ id: undefined, event: 'error-body', data: body });
      return this.status;
    }
    this.done = new Promise<void>((resolve) => {
      let buffer = '';
      let current: ReceivedEvent = { id: undefined, event: 'message', data: '' };
      response.on('data', (value: string) => {
        buffer += value;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            // As EventSource does: an id sets the last event id even when no event is dispatched (no data).
            if (current.id !== undefined) this.lastId = current.id;
            if (current.data !== '') this.events.push(current);
            current = { id: undefined, event: 'message', data: '' };
          } else if (line.startsWith(':')) this.comments++;
          else {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') current.id = text;
            else if (field === 'event') current.event = text;
            else if (field === 'data') current.data = current.data === '' ? text : `${current.data}\n${text}`;
          }
        }
      });
      response.on('close', resolve);
      response.on('error', () => resolve());
    });
    return this.status;
  }

  private lastId: string | undefined;

  /** The last event id received (an event's, or an id line alone): what a reconnecting EventSource sends as Last-Event-ID. */
  get lastEventId(): string | undefined {
    return this.lastId;
  }

  /** Resolves once `predicate` holds of the events received, or rejects after `timeoutMs`. */
  async until(predicate: (events: ReceivedEvent[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const started = Date.now();
    while (!predicate(this.events)) {
      if (Date.now() - started > timeoutMs) throw new Error(`SSE: condition not met within ${timeoutMs} ms; ${this.events.length} events received`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Hangs up, as a browser does when a page closes its EventSource. */
  async close(): Promise<void> {
    this.request?.destroy();
    await this.done;
  }

  /** Resolves when the server ends the stream. */
  get ended(): Promise<void> {
    return this.done ?? Promise.resolve();
  }
}
