import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Address } from 'viem';
import type { Rpc } from '../chain/rpc.js';
import { readTokenFacts } from '../chain/token-facts.js';
import { type DatabaseHandle, queryRows } from '../db/client.js';
import type { CampaignRecord, TokenRecord } from '../ingest/records.js';
import { pgArray } from './store.js';

/**
 * The tokens that the campaigns a batch builds from getBoost() pay (their incentives' `asset`, and a
 * pegged incentive's `peg`) and
 * that the database does not know from the chain yet: decimals, symbol and name read once from each
 * token's contract at the batch's block, as token records for the same ingest as the campaigns, which the indexer writes with
 * `tokensFromChain` (src/ingest/merge.ts: such a record sets the decimals, fills in a name or symbol
 * the stored row lacks, and leaves an import's id, image, whitelist and price alone).
 *
 * A token whose decimals() gives no sensible answer is logged and gets no record: its incentives are
 * served with `metadata: null` (or with what an import stored), and the next batch that creates a
 * campaign paying it reads it again. Token rows are not in the journal: a reorganisation does not
 * make what a contract answered untrue.
 */

const lower = (value: string) => value.toLowerCase();

export async function chainTokenRecords(
  rpc: Rpc,
  database: DatabaseHandle,
  chainId: number,
  campaigns: CampaignRecord[],
  readAt: bigint,
  logger: Logger,
): Promise<TokenRecord[]> {
  // A pegged incentive's peg too: GET /signatures prices its reward in it (the native token, named by the zero address, has no contract).
  const assets = [
    ...new Set(
      campaigns
        .flatMap((campaign) => campaign.incentives.flatMap((incentive) => [incentive.params.asset, incentive.params.peg]))
        .filter((address): address is string => typeof address === 'string' && !/^0x(0{40}|e{40})$/i.test(address))
        .map(lower),
    ),
  ].sort();
  if (assets.length === 0) return [];
  const known = await queryRows<{ address: string }>(
    database.db,
    sql`SELECT address FROM tokens WHERE chain_id = ${chainId} AND address = ANY(${pgArray(assets)}::text[]) AND decimals_from_chain`,
  );
  const knownAddresses = new Set(known.map((row) => row.address));
  const read = await Promise.all(
    assets
      .filter((address) => !knownAddresses.has(address))
      .map(async (address) => ({ address, facts: await readTokenFacts(rpc, address as Address, readAt) })),
  );
  const records: TokenRecord[] = [];
  for (const { address, facts } of read) {
    if (facts.decimals === null) {
      logger.warn({ chainId, address, problems: facts.problems }, 'a token whose decimals() gives no sensible answer: written without metadata from its contract');
      continue;
    }
    if (facts.problems.length > 0) {
      logger.warn({ chainId, address, problems: facts.problems }, "a token's name or symbol is not sensible: written without it");
    }
    records.push({
      kind: 'token',
      chainId,
      address,
      id: chainTokenId(chainId, address),
      name: facts.name ?? '',
      symbol: facts.symbol ?? '',
      decimals: facts.decimals,
      // The chain has no image: an import gives one.
      imageUri: '',
    });
  }
  return records;
}

/** A fixed namespace for chainTokenId (a random UUID, chosen once). */
const TOKEN_ID_NAMESPACE = Buffer.from('6f1d2a4c93b84e0f8a7d5c3b2e1f0a9d', 'hex');

/**
 * The id of a token the indexer inserts: a name-based UUID (RFC 4122 version 5) of `chainId:address`,
 * so indexing the same chain twice, or on two databases, gives the token the same `metadata.id`.
 */
export function chainTokenId(chainId: number, address: string): string {
  const hash = createHash('sha1').update(TOKEN_ID_NAMESPACE).update(`${chainId}:${lower(address)}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
