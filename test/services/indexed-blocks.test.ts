import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexedBlocksRepository } from '../../src/repositories/indexed-blocks.repository.js';
import { IndexedBlocks } from '../../src/services/indexed-blocks.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address } from '../helpers/factories.js';

const CORE = address(0xc0000);

async function checkpoint(database: TestDatabase, blockNumber: number) {
  await database.db.execute(
    sql`INSERT INTO indexer_checkpoints (chain_id, core_address, block_number, block_hash, block_timestamp)
        VALUES (10, ${CORE}, ${blockNumber}, ${`0x${'ab'.repeat(32)}`}, ${1_764_000_000 + blockNumber})
        ON CONFLICT (chain_id, core_address) DO UPDATE SET block_number = excluded.block_number, block_timestamp = excluded.block_timestamp`,
  );
}

describe('IndexedBlocks.refresh', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('settles only after a read that began after the call, with one read for all calls made meanwhile', async () => {
    const repository = createIndexedBlocksRepository(database.db);
    await checkpoint(database, 5);
    // The first read takes its snapshot, then is held back: a background round still in flight.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const blocks = new IndexedBlocks({
      read: async () => {
        reads += 1;
        const rows = await repository.positions();
        if (reads === 1) await held;
        return rows;
      },
      pollMs: 60_000,
      waitPollMs: 60_000,
      logger: { warn: () => undefined },
    });
    const background = blocks.refresh();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await checkpoint(database, 9);
    const asked = [blocks.refresh(), blocks.refresh(), blocks.refresh()];
    release();
    await background;
    expect(blocks.position(10)?.blockNumber).toBe(5);
    await Promise.all(asked);
    expect(blocks.position(10)?.blockNumber).toBe(9);
    expect(reads).toBe(2);
    await blocks.close();
  });
});
