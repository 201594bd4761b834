import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A local stand-in for DefiLlama's public coins API, on 127.0.0.1 and a free port. It exists because
 * tests never call the public API (and the test machines have no network): it answers the two
 * endpoints the price source uses, in the shapes DefiLlama documents at
 * https://api-docs.defillama.com/#tag/coins (source: github.com/DefiLlama/api-docs,
 * defillama-openapi-free.json, servers `https://coins.llama.fi`):
 *
 * - `GET /prices/current/{coins}` and `GET /prices/historical/{timestamp}/{coins}`, `coins` being
 *   comma-separated `{chain}:{address}` or `coingecko:{id}`, `timestamp` unix seconds;
 * - optional `searchWidth` ("time range on either side to find price data, defaults to 6 hours",
 *   written `4h`, `1d`, `30m`, `1w`, or seconds; dropped from the document in July 2026);
 * - 200 with `{"coins": {"<coin as asked>": {"decimals"?, "symbol", "price", "timestamp",
 *   "confidence"?}}}`; a coin without a price is absent; `decimals` absent for `coingecko:` coins.
 *
 * What the document does not say is this stand-in's choice: a coin's price is the point of the
 * table nearest the asked time (now for `current`) within the search width; unknown paths get 404.
 *
 * The table is set by the test per coin and time. `RawJson` puts text into the answer verbatim, for
 * values JSON.stringify cannot write (`1e400`, which JSON.parse reads as Infinity). Faults are
 * switched on with `setFault`; "down" is `close()` (connection refused).
 */

/** Written into the answer as is. */
export class RawJson {
  constructor(readonly text: string) {}
}

export interface StandInPoint {
  /** Unix seconds: where the point sits in the table. */
  at: number;
  /** What the answer says; any value, to test refusals. */
  price: unknown;
  /** What the answer says as `timestamp`; `at` unless the key is there (`undefined` leaves it out). */
  timestamp?: unknown;
  symbol?: string;
  decimals?: number;
  /** 0.99 unless the key is there (`undefined` leaves it out). */
  confidence?: unknown;
}

export type StandInFault =
  /** Answers this status (429, 503, 403 ...) with a short JSON body, and Retry-After when given. */
  | { kind: 'status'; status: number; retryAfter?: string }
  /** Answers correctly, but only after `delayMs`. */
  | { kind: 'slow'; delayMs: number }
  /** Sends the status line, headers and part of a correct body, then waits `delayMs` before the rest. */
  | { kind: 'slow-body'; delayMs: number }
  /** Answers 200 with this body. */
  | { kind: 'garbage'; body: string; contentType?: string }
  /** Closes the connection without an answer. */
  | { kind: 'reset' };

export interface StandInRequest {
  endpoint: 'current' | 'historical' | 'other';
  path: string;
  coins: string[];
  timestamp?: number;
  searchWidth?: string;
}

export interface DefiLlamaStandIn {
  /** The base URL, like `https://coins.llama.fi`. */
  url: string;
  /** Every request received, faulty answers included. */
  requests: StandInRequest[];
  setPrice(coin: string, point: StandInPoint): void;
  /** `skip` requests are answered normally first, then `times` (default: all) get the fault. */
  setFault(fault: StandInFault | null, options?: { skip?: number; times?: number }): void;
  close(): Promise<void>;
}

const DEFAULT_SEARCH_WIDTH_S = 6 * 60 * 60;
const UNIT_SECONDS: Record<string, number> = { '': 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

function parseSearchWidth(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([wdhm]?)$/i.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_SECONDS[(match[2] ?? '').toLowerCase()]!;
}

/** JSON with `RawJson` values written verbatim. */
function stringify(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (item instanceof RawJson) {
      raws.push(item.text);
      return `@@raw:${raws.length - 1}@@`;
    }
    return item;
  });
  return text.replace(/"@@raw:(\d+)@@"/g, (_all, index: string) => raws[Number(index)]!);
}

export async function startDefiLlamaStandIn(options: { now?: () => number } = {}): Promise<DefiLlamaStandIn> {
  const now = options.now ?? (() => Date.now() / 1000);
  const table = new Map<string, StandInPoint[]>();
  const requests: StandInRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let fault: StandInFault | null = null;
  let skip = 0;
  let times = Infinity;

  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const sendJson = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(typeof body === 'string' ? body : stringify(body));
  };

  function answer(request: StandInRequest, url: URL): { status: number; body: unknown } {
    if (request.endpoint === 'other') return { status: 404, body: { message: 'Not Found' } };
    const widthText = url.searchParams.get('searchWidth');
    const width = widthText === null ? DEFAULT_SEARCH_WIDTH_S : parseSearchWidth(widthText);
    if (width === undefined) return { status: 400, body: { message: `bad searchWidth ${widthText}` } };
    const target = request.endpoint === 'current' ? now() : request.timestamp;
    if (target === undefined || !Number.isFinite(target)) return { status: 400, body: { message: 'bad timestamp' } };
    const coins: Record<string, unknown> = {};
    for (const coin of request.coins) {
      const points = (table.get(coin.toLowerCase()) ?? []).filter((point) => Math.abs(point.at - target) <= width);
      const nearest = points.sort((a, b) => Math.abs(a.at - target) - Math.abs(b.at - target))[0];
      if (!nearest) continue;
      coins[coin] = {
        ...(coin.startsWith('coingecko:') ? {} : { decimals: nearest.decimals ?? 18 }),
        symbol: nearest.symbol ?? 'TKN',
        price: nearest.price,
        timestamp: 'timestamp' in nearest ? nearest.timestamp : nearest.at,
        confidence: 'confidence' in nearest ? nearest.confidence : 0.99,
      };
    }
    return { status: 200, body: { coins } };
  }

  function handle(incoming: IncomingMessage, response: ServerResponse) {
    const url = new URL(incoming.url ?? '/', 'http://stand-in');
    const current = /^\/prices\/current\/([^/]+)$/.exec(url.pathname);
    const historical = /^\/prices\/historical\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    const coinList = decodeURIComponent(current?.[1] ?? historical?.[2] ?? '');
    const request: StandInRequest = {
      endpoint: current ? 'current' : historical ? 'historical' : 'other',
      path: `${url.pathname}${url.search}`,
      coins: coinList === '' ? [] : coinList.split(','),
    };
    if (historical) request.timestamp = /^\d+$/.test(historical[1]!) ? Number(historical[1]) : Number.NaN;
    const widthText = url.searchParams.get('searchWidth');
    if (widthText !== null) request.searchWidth = widthText;
    requests.push(request);

    let active: StandInFault | null = null;
    if (fault !== null) {
      if (skip > 0) skip -= 1;
      else if (times > 0) {
        times -= 1;
        active = fault;
      }
    }
    const { status, body } = answer(request, url);
    switch (active?.kind) {
      case undefined:
        return sendJson(response, status, body);
      case 'status':
        return sendJson(
          response,
          active.status,
          { message: `stand-in answers ${active.status}` },
          active.retryAfter === undefined ? {} : { 'retry-after': active.retryAfter },
        );
      case 'slow':
        return later(active.delayMs, () => sendJson(response, status, body));
      case 'slow-body': {
        const text = stringify(body);
        response.writeHead(status, { 'content-type': 'application/json' });
        response.write(text.slice(0, Math.floor(text.length / 2)));
        return later(active.delayMs, () => response.end(text.slice(Math.floor(text.length / 2))));
      }
      case 'garbage':
        response.writeHead(200, { 'content-type': active.contentType ?? 'application/json' });
        return response.end(active.body);
      case 'reset':
        return incoming.socket.destroy();
    }
  }

  const server = createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('stand-in has no TCP address');
  let closed: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    setPrice(coin, point) {
      const points = table.get(coin.toLowerCase()) ?? [];
      points.push(point);
      table.set(coin.toLowerCase(), points);
    },
    setFault(next, { skip: skipFirst = 0, times: count = Infinity } = {}) {
      fault = next;
      skip = skipFirst;
      times = count;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}
