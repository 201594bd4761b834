import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';

/** How far the indexer has written one chain: its last block and that block's time (Unix seconds). */
export interface ChainPosition {
  chainId: number;
  blockNumber: number;
  blockTimestamp: number;
}

export function createIndexedBlocksRepository(db: Database) {
  return {
    /**
     * For each chain the indexer follows, the last block whose logs are all written: the lowest
     * checkpoint of the chain's BoostCores (a chain with two cores is written through the block the
     * slower one reached). Read where the answers are read, so that it says what they reflect.
     */
    async positions(): Promise<ChainPosition[]> {
      return queryRows<ChainPosition>(
        db,
        sql`SELECT DISTINCT ON (chain_id) chain_id AS "chainId", block_number::float8 AS "blockNumber", block_timestamp::float8 AS "blockTimestamp"
              FROM indexer_checkpoints
             ORDER BY chain_id, block_number`,
      );
    },
  };
}

export type IndexedBlocksRepository = ReturnType<typeof createIndexedBlocksRepository>;
