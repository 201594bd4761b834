import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address, erc20Incentive, insertCampaign, insertClaim, insertToken } from '../helpers/factories.js';

const CORE = address(0xc0000);
const OTHER_CORE = address(0xc0001);

/** Writes a chain's checkpoint as the indexer does, in the transaction of the block's records. */
async function indexThrough(database: TestDatabase, chainId: number, blockNumber: number, core = CORE, write?: (tx: TestDatabase['db']) => Promise<unknown>) {
  await database.db.transaction(async (tx) => {
    await write?.(tx);
    await tx.execute(
      sql`INSERT INTO indexer_checkpoints (chain_id, core_address, block_number, block_hash, block_timestamp)
          VALUES (${chainId}, ${core}, ${blockNumber}, ${`0x${'ab'.repeat(32)}`}, ${1_764_000_000 + blockNumber})
          ON CONFLICT (chain_id, core_address) DO UPDATE SET block_number = excluded.block_number, block_timestamp = excluded.block_timestamp`,
    );
  });
}

const totalClaims = (body: { incentives: { totalClaims?: string }[] }) => body.incentives[0]!.totalClaims;

describe('freshness: Indexed-Blocks and minBlock', () => {
  let database: TestDatabase;
  let app: App;
  let campaign: { key: number; publicId: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    const token = await insertToken(database.db);
    campaign = await insertCampaign(database.db, { chainId: 8453, incentives: [erc20Incentive(token.address)] });
    await indexThrough(database, 8453, 100);
    await indexThrough(database, 10, 7);
    app = await buildTestApp(database, { INDEXED_BLOCKS_POLL_MS: '20', READ_YOUR_WRITES_MAX_WAIT_MS: '600' });
    await app.indexedBlocks.refresh();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('says per chain which block the answer includes at least', async () => {
    const response = await app.inject('/campaigns');
    expect(response.statusCode).toBe(200);
    expect(response.headers['indexed-blocks']).toBe('10;block=7;time=1764000007, 8453;block=100;time=1764000100');
    // Not on operations that are not public data.
    expect((await app.inject('/health/live')).headers['indexed-blocks']).toBeUndefined();
  });

  it("names a chain's slowest core: its blocks are all written only through that one's checkpoint", async () => {
    await indexThrough(database, 10, 5, OTHER_CORE);
    await app.indexedBlocks.refresh();
    expect((await app.inject('/campaigns')).headers['indexed-blocks']).toBe('10;block=5;time=1764000005, 8453;block=100;time=1764000100');
    await database.db.execute(sql`DELETE FROM indexer_checkpoints WHERE core_address = ${OTHER_CORE}`);
    await app.indexedBlocks.refresh();
  });

  it('with minBlock already written, answers at once', async () => {
    const response = await app.inject(`/campaigns/${campaign.publicId}?minBlock=8453:100`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['indexed-blocks']).toContain('8453;block=100;');
  });

  it('with minBlock ahead of the indexer, waits for the block and answers with its claim', async () => {
    const before = totalClaims((await app.inject(`/campaigns/${campaign.publicId}`)).json());
    const asked = app.inject(`/campaigns/${campaign.publicId}?minBlock=8453:101`);
    // The indexer writes block 101 (a claim) a moment later, the claim and the checkpoint in one transaction.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await indexThrough(database, 8453, 101, CORE, (tx) => insertClaim(tx, { campaignKey: campaign.key }));
    const response = await asked;
    expect(response.statusCode).toBe(200);
    expect(BigInt(totalClaims(response.json())!)).toBe(BigInt(before ?? 0) + 1n);
    expect(response.headers['indexed-blocks']).toContain('8453;block=101;time=1764000101');
  });

  it('answers 503 with Retry-After when the block is not written within the bound', async () => {
    const started = Date.now();
    const asked = app.inject(`/campaigns?minBlock=8453:500`);
    // The indexer moves on while the request waits, but not far enough.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await indexThrough(database, 8453, 108);
    const response = await asked;
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json()).toEqual({
      error: 'block 500 of chain 8453 is not indexed yet (indexed through 108; waited 600 ms); retry shortly',
    });
    // The header names the position the message names, not the one the request arrived with.
    expect(response.headers['indexed-blocks']).toBe('10;block=7;time=1764000007, 8453;block=108;time=1764000108');
  });

  it('refuses a chain the indexer does not follow and a malformed minBlock with a 400', async () => {
    // A chain indexed meanwhile shows in the 400's header: the position the refusal went by.
    await indexThrough(database, 10, 9);
    const unknown = await app.inject('/campaigns?minBlock=1:5');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ error: 'minBlock names chain 1, which the indexer does not follow' });
    expect(unknown.headers['indexed-blocks']).toBe('10;block=9;time=1764000009, 8453;block=108;time=1764000108');
    for (const bad of ['8453', '8453:', 'abc:1', '8453:1:2', '8453:-1', `8453:${'9'.repeat(17)}`]) {
      const response = await app.inject(`/campaigns?minBlock=${encodeURIComponent(bad)}`);
      expect(response.statusCode, bad).toBe(400);
      expect(response.json(), bad).toEqual({ error: 'minBlock must be <chain_id>:<block_number>, e.g. 8453:23145678' });
    }
    const twice = await app.inject('/campaigns?minBlock=8453:1&minBlock=8453:2');
    expect(twice.json()).toEqual({ error: 'minBlock must be given only once' });
  });

  it('documents the header and the parameter in the OpenAPI document', async () => {
    type Operation = { parameters: { name: string; in: string }[]; responses: Record<string, { headers: Record<string, unknown> }> };
    const document = (await app.inject('/openapi.json')).json<{ paths: Record<string, Record<string, Operation>> }>();
    for (const [path, operation] of [
      ['/campaigns', 'get'],
      ['/campaigns/{id}', 'get'],
      ['/reward-kit/trending', 'get'],
    ] as const) {
      const op = document.paths[path]![operation]!;
      expect(op.parameters.some((p) => p.name === 'minBlock' && p.in === 'query'), path).toBe(true);
      expect(Object.keys(op.responses['200']!.headers), path).toEqual(expect.arrayContaining(['Indexed-Blocks', 'Age']));
    }
  });
});

describe('minBlock where no chain is indexed (the demo data, no indexer)', () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database, { READ_YOUR_WRITES_MAX_WAIT_MS: '600' });
    await app.indexedBlocks.refresh();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('says that minBlock needs the indexer, and sends no Indexed-Blocks', async () => {
    const response = await app.inject('/campaigns?minBlock=8453:5');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'minBlock needs the indexer: no chain is indexed here (set CHAIN_RPC_URLS), so chain 8453 is unknown',
    });
    expect(response.headers['indexed-blocks']).toBeUndefined();
  });
});

describe('freshness through the response cache', () => {
  let database: TestDatabase;
  let app: App;
  let now = 1_800_000_000_000;

  beforeAll(async () => {
    database = await createTestDatabase();
    await indexThrough(database, 8453, 40);
    app = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '60000', INDEXED_BLOCKS_POLL_MS: '3600000' }, undefined, {
      clock: () => new Date(now),
    });
    await app.indexedBlocks.refresh();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('serves a kept answer with the position it was produced at and its Age', async () => {
    const first = await app.inject('/campaigns');
    expect(first.headers['indexed-blocks']).toBe('8453;block=40;time=1764000040');
    expect(first.headers.age).toBeUndefined();
    await indexThrough(database, 8453, 41);
    await app.indexedBlocks.refresh();
    now += 2_500;
    const kept = await app.inject('/campaigns');
    expect(kept.headers.age).toBe('2');
    expect(kept.headers['indexed-blocks']).toBe('8453;block=40;time=1764000040');
    // A request that must include block 41 is not answered from the answer kept at 40.
    const fresh = await app.inject('/campaigns?minBlock=8453:41');
    expect(fresh.headers.age).toBeUndefined();
    expect(fresh.headers['indexed-blocks']).toBe('8453;block=41;time=1764000041');
  });
});
