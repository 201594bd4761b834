import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import type { TokenRecord } from '../../src/ingest/records.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import { ingest, type IngestSummary } from '../../src/ingest/write.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * Token records from the chain (the indexer's, `tokensFromChain`) and from an import, on the same
 * row: the chain's decimals stay whatever an import says later; an import's id, name, symbol, image,
 * whitelist and price stay whatever the chain says later, but an empty name or symbol is filled in.
 */

const CHAIN = 8453;
const token = (address: string, fields: Partial<TokenRecord> = {}): TokenRecord => ({
  kind: 'token',
  chainId: CHAIN,
  address,
  id: '22222222-2222-4222-8222-222222222222',
  name: 'Imported name',
  symbol: 'IMP',
  decimals: 18,
  imageUri: 'https://example.com/imported.png',
  isWhitelisted: true,
  priceUsd: '1.5',
  ...fields,
});

interface TokenRow {
  id: string;
  name: string;
  symbol: string;
  decimals: number;
  image_uri: string;
  is_whitelisted: boolean;
  price_usd: string | null;
  decimals_from_chain: boolean;
}

describe('token decimals: the chain over an import', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database?.close();
  });

  const write = async (records: TokenRecord[], tokensFromChain = false): Promise<IngestSummary['token']> =>
    (await ingest(database, memorySource(records), { derived: 'live', tokensFromChain })).token;
  const row = async (address: string) => {
    const [found] = await queryRows<TokenRow>(
      database.db,
      sql`SELECT id::text, name, symbol, decimals, image_uri, is_whitelisted, price_usd::text, decimals_from_chain
            FROM tokens WHERE chain_id = ${CHAIN} AND address = ${address}`,
    );
    return found;
  };
  const fromChain = (address: string, fields: Partial<TokenRecord> = {}) =>
    token(address, { id: '33333333-3333-4333-8333-333333333333', name: 'Chain name', symbol: 'CHN', decimals: 6, imageUri: '', isWhitelisted: undefined, priceUsd: undefined, ...fields });

  it('a token from the chain keeps its decimals through a later import, which sets everything else', async () => {
    const address = `0x${'a1'.repeat(20)}`;
    expect(await write([fromChain(address)], true)).toMatchObject({ inserted: 1 });
    expect(await row(address)).toEqual({
      id: '33333333-3333-4333-8333-333333333333',
      name: 'Chain name',
      symbol: 'CHN',
      decimals: 6,
      image_uri: '',
      is_whitelisted: false,
      price_usd: null,
      decimals_from_chain: true,
    });
    expect(await write([token(address)])).toMatchObject({ updated: 1 });
    expect(await row(address)).toEqual({
      id: '22222222-2222-4222-8222-222222222222',
      name: 'Imported name',
      symbol: 'IMP',
      decimals: 6,
      image_uri: 'https://example.com/imported.png',
      is_whitelisted: true,
      price_usd: '1.500000000000000000',
      decimals_from_chain: true,
    });
    // An import that differs only in decimals changes nothing, and says so.
    expect(await write([token(address, { decimals: 9 })])).toMatchObject({ inserted: 0, updated: 0, unchanged: 1 });
    expect((await row(address))!.decimals).toBe(6);
  });

  it('a token imported first gets the chain decimals and keeps the import\'s name, symbol, id, image, whitelist and price', async () => {
    const address = `0x${'b2'.repeat(20)}`;
    const id = '44444444-4444-4444-8444-444444444444';
    await write([token(address, { id, symbol: '' })]);
    expect(await row(address)).toMatchObject({ decimals: 18, decimals_from_chain: false });
    // Before the chain is read, an import sets decimals as it does every field.
    await write([token(address, { id, symbol: '', decimals: 12 })]);
    expect((await row(address))!.decimals).toBe(12);
    expect(await write([fromChain(address, { id: '55555555-5555-4555-8555-555555555555' })], true)).toMatchObject({ updated: 1 });
    expect(await row(address)).toEqual({
      id,
      name: 'Imported name',
      // The import left it empty: the contract's fills it in.
      symbol: 'CHN',
      decimals: 6,
      image_uri: 'https://example.com/imported.png',
      is_whitelisted: true,
      price_usd: '1.500000000000000000',
      decimals_from_chain: true,
    });
    // The same facts again change nothing.
    expect(await write([fromChain(address, { id: '55555555-5555-4555-8555-555555555555' })], true)).toMatchObject({ unchanged: 1 });
  });
});
