import { createServer, type Server } from 'node:http';

/**
 * A JSON-RPC proxy in front of anvil that misbehaves on demand, as real endpoints do: down (503),
 * rate limited (429), connections reset, and eth_getLogs ranges over `maxLogRange` blocks refused
 * with the error text of a provider that limits results.
 */

export type Mode = 'up' | '503' | '429' | 'reset';

export interface JsonRpcRequest {
  id: number;
  method: string;
  params?: { fromBlock?: string; toBlock?: string; to?: string; data?: string }[];
}

export interface FaultyRpc {
  url: string;
  mode: Mode;
  maxLogRange: number;
  /** Requests refused because of the mode or the range. */
  refused: number;
  refusedRanges: number;
  /** Awaited before a request is forwarded: a test's way to act while the indexer is in a given call. */
  beforeForward?: (request: JsonRpcRequest) => Promise<void>;
  close(): Promise<void>;
}

export async function startFaultyRpc(upstream: string): Promise<FaultyRpc> {
  const state: Pick<FaultyRpc, 'mode' | 'maxLogRange' | 'refused' | 'refusedRanges' | 'beforeForward'> = {
    mode: 'up',
    maxLogRange: Number.POSITIVE_INFINITY,
    refused: 0,
    refusedRanges: 0,
  };
  const forward = async (request: JsonRpcRequest) => {
    await state.beforeForward?.(request);
    const params = request.params?.[0];
    if (request.method === 'eth_getLogs' && params?.fromBlock && params.toBlock) {
      const size = Number(BigInt(params.toBlock) - BigInt(params.fromBlock)) + 1;
      if (size > state.maxLogRange) {
        state.refusedRanges++;
        return { jsonrpc: '2.0', id: request.id, error: { code: -32005, message: 'query returned more than 10000 results' } };
      }
    }
    const response = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    return response.json();
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (state.mode !== 'up') {
        state.refused++;
        if (state.mode === 'reset') return req.socket.destroy();
        res.writeHead(state.mode === '503' ? 503 : 429, { 'content-type': 'text/plain', 'retry-after': '1' });
        return res.end(state.mode === '503' ? 'service unavailable' : 'too many requests');
      }
      const body = JSON.parse(Buffer.concat(chunks).toString()) as JsonRpcRequest | JsonRpcRequest[];
      const answer = Array.isArray(body) ? Promise.all(body.map(forward)) : forward(body);
      answer.then(
        (result) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(result));
        },
        () => req.socket.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
