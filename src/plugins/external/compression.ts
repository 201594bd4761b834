import negotiate from '@fastify/accept-negotiator';
import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { constants } from 'node:zlib';

/**
 * The encodings offered, in the server's order of preference among those a client accepts equally
 * (`gzip, br`, as browsers send it, gets br). Brotli first: on JSON it makes smaller answers than
 * gzip for about the same CPU at the quality below. No deflate (every client that takes it takes
 * gzip) and no zstd (Node 20 has none, and an answer must not depend on the Node a replica runs).
 */
const ENCODINGS: ResponseEncoding[] = ['br', 'gzip'];
export type ResponseEncoding = 'br' | 'gzip';

/**
 * Brotli at quality 4, not zlib's default 11: 11 costs many times the CPU for a few percent
 * fewer bytes, which on an API answered per request (and again per response cache hit) is the
 * wrong trade; 4 already beats gzip's size. Text mode, since every compressed answer is UTF-8
 * JSON or text.
 */
const BROTLI_OPTIONS = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
};

/** gzip at zlib's usual level 6: past it the CPU grows fast for little gain, below it the size does. */
const GZIP_OPTIONS = { level: 6 };

/** @fastify/compress reads `*` and `x-gzip` in Accept-Encoding as gzip; so does {@link ResponseCompression}. */
const GZIP_ALIASES = /\*|x-gzip/gu;

/**
 * Which answers @fastify/compress compresses, and how, for the hooks that must know before it runs.
 *
 * The public cache decides ETag, Vary and 304 before compression (a 304 must not pay for
 * compressing a body it drops), and the headers of a 304 must be those of the 200 it stands for:
 * - an answer of at least `minBytes` gets `Vary: Accept-Encoding` whatever this client accepts,
 *   because another client gets another encoding of it; smaller ones are never compressed;
 * - a compressed answer's ETag is the uncompressed body's, made weak (`W/`): the encodings of one
 *   body are semantically the same but not the same bytes, which a strong tag would claim. If-None-Match
 *   compares weakly, so a tag of either form revalidates any encoding of the same body.
 * {@link encodingFor} repeats @fastify/compress's own choice (the same negotiator, aliases, encodings
 * and threshold); the tests compare its headers on 200s and 304s.
 */
export class ResponseCompression {
  constructor(readonly minBytes: number) {}

  /** Whether an answer of `bytes` bytes is compressed for a client that accepts it. */
  varies(bytes: number): boolean {
    return bytes >= this.minBytes;
  }

  /** The encoding of a successful answer of `bytes` bytes to `request`; undefined for none. */
  encodingFor(request: FastifyRequest, bytes: number): ResponseEncoding | undefined {
    // Fastify's HEAD route drops the body before the compression hook sees it: HEAD answers
    // describe the uncompressed body (its length, its strong ETag).
    if (request.method === 'HEAD' || !this.varies(bytes)) return undefined;
    if (request.headers['x-no-compression'] !== undefined) return undefined;
    const accepted = request.headers['accept-encoding'];
    if (accepted === undefined) return undefined;
    return negotiate(accepted.toLowerCase().replace(GZIP_ALIASES, 'gzip'), ENCODINGS) ?? undefined;
  }
}

// Lower case: @fastify/compress looks for exactly this spelling before adding its own.
const VARY_TOKEN = 'accept-encoding';

/** `Vary: Accept-Encoding` on `reply`, beside what it already varies on (CORS may have added Origin). */
export function varyOnAcceptEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const listed = Array.isArray(vary) ? vary.join(', ') : vary === undefined ? '' : String(vary);
  if (listed === '') void reply.header('vary', VARY_TOKEN);
  else if (listed.trim() !== '*' && !listed.toLowerCase().includes(VARY_TOKEN)) void reply.header('vary', `${listed}, ${VARY_TOKEN}`);
}

/**
 * @fastify/compress on every route: answers of at least `minBytes` whose type compresses (JSON,
 * text; never event streams) go out in the encoding the client prefers among br and gzip, the
 * others as they are. Request bodies are never decompressed: the API takes none.
 *
 * Compression of secrets beside text an attacker chooses (BREACH) needs a browser that attaches the
 * victim's credentials by itself; the only credentials here are bearer tokens a script sets, and the
 * public answers hold no secret.
 */
export const compression = fp<{ policy: ResponseCompression }>(
  async (app: FastifyInstance, { policy }) => {
    await app.register(compress, {
      global: true,
      globalDecompression: false,
      encodings: ENCODINGS,
      threshold: policy.minBytes,
      brotliOptions: BROTLI_OPTIONS,
      zlibOptions: GZIP_OPTIONS,
    });
  },
  { name: 'compression' },
);
