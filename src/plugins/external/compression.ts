import negotiate from '@fastify/accept-negotiator';
import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import zlib, { constants } from 'node:zlib';
import type { Config } from '../../config.js';

/**
 * The encodings offered, in the server's order of preference among those a client accepts equally
 * (`gzip, deflate, br, zstd`, as browsers send it, gets br): at the levels below, brotli makes
 * answers about as small as gzip's, much smaller on large lists, for less CPU. No deflate (every
 * client that takes it takes gzip) and no zstd (Node 20 has none, and an answer must not depend on
 * the Node a replica runs).
 */
const ENCODINGS: ResponseEncoding[] = ['br', 'gzip'];
export type ResponseEncoding = 'br' | 'gzip';

/**
 * Brotli's quality by the answer's size, and gzip's fastest level. The service runs out of CPU
 * before anything else, so the levels are low, and `npm run bench:compression` measures them on
 * saved answers:
 * - from BROTLI_SMALL_ANSWER_BYTES on, brotli quality 1 is both smaller and cheaper than gzip level 1 (quality 1 works
 *   with a larger window from that size on);
 * - below it, quality 1 sends more bytes than gzip level 1, while quality 3 sends about as many
 *   or fewer for a little more CPU than gzip's, and such answers are cheap at any quality.
 * The response cache compresses a kept answer once per encoding, not once per request.
 */
const BROTLI_SMALL_ANSWER_BYTES = 32 * 1024;
export function brotliQualityFor(bytes: number): number {
  return bytes < BROTLI_SMALL_ANSWER_BYTES ? 3 : 1;
}
const brotliOptionsFor = (bytes: number) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: brotliQualityFor(bytes), [constants.BROTLI_PARAM_SIZE_HINT]: bytes },
});
/** Answers above {@link SYNC_MAX_BYTES} stream, and a stream's size is not known in advance. */
const BROTLI_STREAM_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQualityFor(Infinity) } };
const GZIP_OPTIONS = { level: 1 };
/**
 * zlib as @fastify/compress uses it, with brotli's one-call compression choosing its quality by
 * size (zlib's own function is looked up at each call, so that tests can observe it).
 */
const ZLIB_WITH_BROTLI_BY_SIZE = {
  ...zlib,
  brotliCompressSync: (payload: Buffer | string) => zlib.brotliCompressSync(payload, brotliOptionsFor(Buffer.byteLength(payload))),
};

/**
 * Buffered answers up to this size are compressed in one synchronous call on the main thread, not
 * through a zlib stream on the libuv pool (by default @fastify/compress streams any answer above a
 * few KiB, less the more cores the host has): a streaming encoder does not know the length (brotli
 * sizes its window for the worst case) and each chunk is a trip to the pool, so the stream costs far
 * more CPU per answer, and this service runs out of CPU, not of main-thread time, first. Above it,
 * one answer would hold the main thread too long at once, so it streams.
 */
const SYNC_MAX_BYTES = 1024 * 1024;

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
      zlib: ZLIB_WITH_BROTLI_BY_SIZE,
      brotliOptions: BROTLI_STREAM_OPTIONS,
      zlibOptions: GZIP_OPTIONS,
      syncThreshold: SYNC_MAX_BYTES,
    });
  },
  { name: 'compression' },
);

/** The compression policy as the app runs it: answers of COMPRESSION_MIN_BYTES and more; undefined when COMPRESSION_ENABLED is off. */
export function responseCompressionFor(config: Pick<Config, 'COMPRESSION_ENABLED' | 'COMPRESSION_MIN_BYTES'>): ResponseCompression | undefined {
  return config.COMPRESSION_ENABLED ? new ResponseCompression(config.COMPRESSION_MIN_BYTES) : undefined;
}
