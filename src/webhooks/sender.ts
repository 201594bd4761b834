import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { ADDRESS_REFUSED_CODE, guardedLookup, refusedAddressReason } from './address-guard.js';

/** What a receiver answered. */
export interface WebhookResponse {
  status: number;
  /** Its Retry-After, in seconds from now, when it sent one that parses. */
  retryAfterSeconds: number | undefined;
}

/** A delivery that got no answer: refused address, connection failure, time-out. The message never holds a secret. */
export class DeliveryError extends Error {}

export interface WebhookSenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Bytes of a response read at most; the rest is not waited for. */
  maxResponseBytes?: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs webhook messages. It connects to the address its lookup checked (no second resolution that
 * DNS rebinding could answer differently), follows no redirect (a 3xx is an answer like any other),
 * reads a bounded part of the response, and gives the whole exchange `timeoutMs`. Connections are
 * kept alive between messages to the same receiver.
 */
export class WebhookSender {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly lookup: ReturnType<typeof guardedLookup>;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: WebhookSenderOptions) {
    this.lookup = guardedLookup(options.allowPrivate);
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 4 });
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<WebhookResponse> {
    const target = new URL(url);
    // A literal address is not looked up, so the lookup's check would not run: checked here.
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!this.options.allowPrivate && isIP(host) !== 0) {
      const reason = refusedAddressReason(host);
      if (reason) throw new DeliveryError(`${host} is a ${reason} address; set WEBHOOK_ALLOW_PRIVATE=true to allow it`);
    }
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') throw new DeliveryError(`${target.protocol} is not http: or https:`);
    const request = (secure ? https : http).request;
    const payload = Buffer.from(body);
    return new Promise<WebhookResponse>((resolve, reject) => {
      const outgoing = request(target, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup,
        headers: { ...headers, 'content-length': String(payload.length), 'user-agent': 'campaign-service-webhooks' },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => reject(new DeliveryError(describe(error, this.options.timeoutMs))));
      outgoing.on('response', (response) => {
        const answer = { status: response.statusCode ?? 0, retryAfterSeconds: parseRetryAfter(response.headers['retry-after']) };
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > this.maxResponseBytes) {
            // Enough: the status is what counts, and a receiver cannot make us read without end.
            response.destroy();
            resolve(answer);
          }
        });
        response.on('end', () => resolve(answer));
        response.on('error', (error: NodeJS.ErrnoException) => reject(new DeliveryError(describe(error, this.options.timeoutMs))));
      });
      outgoing.end(payload);
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function describe(error: NodeJS.ErrnoException, timeoutMs: number): string {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (error.code === ADDRESS_REFUSED_CODE) return error.message;
  return error.code ? `${error.code}: ${error.message}` : error.message;
}

const HTTP_DATE = /^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$/;

/** Retry-After as seconds from now: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^[0-9]{1,10}$/.test(text)) return Number(text);
  // An HTTP date (IMF-fixdate), not whatever else Date.parse would make a date of.
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
