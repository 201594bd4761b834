import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, onRequestHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest, serviceUnavailable } from '../errors.js';
import type { IndexedBlocks } from '../services/indexed-blocks.js';
import { settingDefault } from '../setting-defaults.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where the indexed data stands, per chain; what the public answers say they reflect. */
    indexedBlocks: IndexedBlocks;
  }
}

/** The header naming, per chain, the last block the answer's data includes at least. */
export const INDEXED_BLOCKS_HEADER = 'indexed-blocks';

const MIN_BLOCK = /^([0-9]{1,10}):([0-9]{1,16})$/;

/** The `minBlock` query parameter every public route takes. */
export const MinBlockParameter = Type.String({
  pattern: MIN_BLOCK.source,
  errorMessage: 'must be <chain_id>:<block_number>, e.g. 8453:23145678',
  description:
    'Read your own writes: answer only from data that includes this block of this chain (`<chain_id>:<block_number>`), ' +
    'e.g. the block of the transaction the client just sent. The server waits until the indexer has written the block, ' +
    `at most the bound that a 503 names (${settingDefault('READ_YOUR_WRITES_MAX_WAIT_MS')} by default, \`READ_YOUR_WRITES_MAX_WAIT_MS\`), and never answers` +
    ' from the cache of an answer ' +
    "that might not include it. A chain the indexer does not follow is a 400. Without it, an answer reflects at least the blocks its Indexed-Blocks header names.",
});

/**
 * Freshness for the public routes (`config: { publicCache: true }`): every answer says in an
 * `Indexed-Blocks` header which block of each chain its data includes at least (the position read
 * before the request's queries; the response cache keeps it with the answer and adds `Age`), and
 * `minBlock=<chain>:<block>` makes a request wait until the indexer has written that block, up to
 * `maxWaitMs`, then 503 with Retry-After. Registered before strict-query, which reads the schema it
 * extends.
 */
export const freshness = fp<{ indexedBlocks: IndexedBlocks; maxWaitMs: number }>(
  (app: FastifyInstance, { indexedBlocks, maxWaitMs }, done) => {
    app.decorate('indexedBlocks', indexedBlocks);
    app.addHook('onReady', (ready) => {
      indexedBlocks.start();
      ready();
    });
    app.addHook('onClose', async () => indexedBlocks.close());

    const sayWhereDataStands: onRequestHookHandler = (_request, reply, next) => {
      const header = indexedBlocks.header;
      if (header !== undefined) void reply.header(INDEXED_BLOCKS_HEADER, header);
      next();
    };
    /** The position read last, replacing the one the request arrived with. */
    const sayWhereDataStandsNow = (reply: FastifyReply) => {
      const header = indexedBlocks.header;
      if (header === undefined) void reply.removeHeader(INDEXED_BLOCKS_HEADER);
      else void reply.header(INDEXED_BLOCKS_HEADER, header);
    };

    const waitForMinBlock: preHandlerAsyncHookHandler = async (request, reply) => {
      const query = request.query as { minBlock?: string };
      if (query.minBlock === undefined) return;
      const [, chain, block] = MIN_BLOCK.exec(query.minBlock)!;
      delete query.minBlock;
      const chainId = Number(chain);
      const blockNumber = Number(block);
      const outcome = await indexedBlocks.waitFor(chainId, blockNumber, maxWaitMs);
      // The wait read the positions again, and the answer names the one it goes by, not the one the
      // request arrived with: written, one that includes the block (the data, read after it, does
      // too); an error, the one its message names.
      sayWhereDataStandsNow(reply);
      if (outcome === 'unknown-chain') {
        throw badRequest(
          indexedBlocks.indexesAnyChain
            ? `minBlock names chain ${chainId}, which the indexer does not follow`
            : `minBlock needs the indexer: no chain is indexed here (set CHAIN_RPC_URLS), so chain ${chainId} is unknown`,
        );
      }
      if (outcome === 'timed-out') {
        const at = indexedBlocks.position(chainId)?.blockNumber;
        throw serviceUnavailable(
          `block ${blockNumber} of chain ${chainId} is not indexed yet (indexed through ${at ?? 'no block'}; waited ${maxWaitMs} ms); retry shortly`,
        );
      }
    };

    app.addHook('onRoute', (route) => {
      // Fastify announces a GET route's HEAD twin with the same options: extend them once.
      if (route.config?.publicCache !== true || [route.onRequest ?? []].flat().includes(sayWhereDataStands)) return;
      const querystring = (route.schema?.querystring as TObject | undefined) ?? Type.Object({}, { additionalProperties: false });
      const properties = querystring.properties as Record<string, TSchema>;
      if (!('minBlock' in properties)) {
        route.schema = { ...route.schema, querystring: { ...querystring, properties: { ...properties, minBlock: Type.Optional(MinBlockParameter) } } };
      }
      route.onRequest = [sayWhereDataStands, ...[route.onRequest ?? []].flat()];
      route.preHandler = [waitForMinBlock, ...[route.preHandler ?? []].flat()];
    });
    done();
  },
  { name: 'freshness' },
);
