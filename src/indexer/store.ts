import { sql } from 'drizzle-orm';
import type { BulkSession, DatabaseHandle } from '../db/client.js';
import { campaignRecordOf, campaignRecordsQuery } from '../ingest/stored-records.js';
import type { AllowListRecord, CampaignRecord, DeletionRecord, UpsertRecord } from '../ingest/records.js';

/**
 * The indexer's state in the database (tables indexer_* in src/db/schema.ts) and what it reads of
 * the data: checkpoints, recent block hashes, the journal of what each block wrote, each boost's
 * incentive contracts, stored campaigns and allow lists (their off-chain fields are kept), token prices.
 */

export interface CoreId {
  chainId: number;
  core: string;
}

export interface Checkpoint {
  blockNumber: bigint;
  blockHash: string;
  blockTimestamp: number;
}

export interface KnownIncentive {
  address: string;
  position: number | null;
}

export interface JournalEntry {
  blockNumber: bigint;
  kind: string;
  naturalKey: string;
  /** What undoes the block's write: a deletion of what it created, or the record as it was before. */
  record: DeletionRecord | UpsertRecord;
}

export interface IncentiveRow {
  boostId: string;
  incentiveId: number;
  address: string;
  position: number | null;
  blockNumber: bigint;
}

export interface BlockRow {
  blockNumber: bigint;
  blockHash: string;
}

/** A list as one array parameter (`{a,b}`); the values are decimal numbers or hex addresses, nothing to quote. */
export const pgArray = (values: string[]) => `{${values.join(',')}}`;

/** Where a reader runs: a transaction of its own, or the writing transaction it is called in. */
export type ReadSource = DatabaseHandle | BulkSession;

const read = <T>(source: ReadSource, work: (session: BulkSession) => Promise<T>) =>
  'bulkTransaction' in source ? source.bulkTransaction(work) : work(source);

export async function loadCheckpoint(database: DatabaseHandle, { chainId, core }: CoreId): Promise<Checkpoint | null> {
  const [row] = await read(database, (session) =>
    session.query<{ block_number: string; block_hash: string; block_timestamp: string }>(
      sql`SELECT block_number::text, block_hash, block_timestamp::text FROM indexer_checkpoints WHERE chain_id = ${chainId} AND core_address = ${core}`,
    ),
  );
  return row ? { blockNumber: BigInt(row.block_number), blockHash: row.block_hash, blockTimestamp: Number(row.block_timestamp) } : null;
}

/** Stored block hashes, newest first. */
export async function recentBlocks(database: DatabaseHandle, { chainId, core }: CoreId): Promise<BlockRow[]> {
  const rows = await read(database, (session) =>
    session.query<{ block_number: string; block_hash: string }>(
      sql`SELECT block_number::text, block_hash FROM indexer_blocks WHERE chain_id = ${chainId} AND core_address = ${core} ORDER BY block_number DESC`,
    ),
  );
  return rows.map((row) => ({ blockNumber: BigInt(row.block_number), blockHash: row.block_hash }));
}

export async function knownIncentives(database: DatabaseHandle, { chainId, core }: CoreId, boostIds: string[]): Promise<Map<string, KnownIncentive[]>> {
  const result = new Map<string, KnownIncentive[]>();
  if (boostIds.length === 0) return result;
  const rows = await read(database, (session) =>
    session.query<{ boost_id: string; incentive_id: number; address: string; position: number | null }>(
      sql`SELECT boost_id::text, incentive_id, address, position FROM indexer_incentives
           WHERE chain_id = ${chainId} AND core_address = ${core} AND boost_id = ANY(${pgArray(boostIds)}::numeric[]) ORDER BY boost_id, incentive_id`,
    ),
  );
  for (const row of rows) {
    const list = result.get(row.boost_id) ?? [];
    list[row.incentive_id] = { address: row.address, position: row.position };
    result.set(row.boost_id, list);
  }
  return result;
}

/** The boosts' incentives at these contract addresses (lowercase), for logs an incentive emits. */
export async function incentivesAt(database: DatabaseHandle, { chainId, core }: CoreId, addresses: string[]): Promise<IncentiveRow[]> {
  if (addresses.length === 0) return [];
  const rows = await read(database, (session) =>
    session.query<{ boost_id: string; incentive_id: number; address: string; position: number | null; block_number: string }>(
      sql`SELECT boost_id::text, incentive_id, address, position, block_number::text FROM indexer_incentives
           WHERE chain_id = ${chainId} AND core_address = ${core} AND address = ANY(${pgArray(addresses)}::text[])`,
    ),
  );
  return rows.map((row) => ({
    boostId: row.boost_id,
    incentiveId: row.incentive_id,
    address: row.address,
    position: row.position,
    blockNumber: BigInt(row.block_number),
  }));
}

/** Whether `claimant` has a claim of the campaign's incentive at `position`. */
export async function hasClaimed(database: DatabaseHandle, campaign: string, position: number, claimant: string): Promise<boolean> {
  const rows = await read(database, (session) =>
    session.query<{ found: boolean }>(
      sql`SELECT EXISTS (SELECT 1 FROM claims AS k JOIN campaigns AS c ON c.key = k.campaign_key
                          WHERE c.public_id = ${campaign} AND k.incentive_position = ${position} AND k.claimant = ${claimant}) AS found`,
    ),
  );
  return rows[0]?.found === true;
}

export async function storedCampaigns(source: ReadSource, { chainId, core }: CoreId, boostIds: string[]): Promise<Map<string, CampaignRecord>> {
  const result = new Map<string, CampaignRecord>();
  if (boostIds.length === 0) return result;
  const where = sql`c.chain_id = ${chainId} AND c.core_address = ${core} AND c.identifier = ANY(${pgArray(boostIds)}::numeric[])`;
  const rows = await read(source, (session) => session.query<Record<string, unknown>>(campaignRecordsQuery(where)));
  for (const row of rows) {
    const record = campaignRecordOf(row);
    result.set(record.identifier, record);
  }
  return result;
}

export async function storedAllowLists(source: ReadSource, chainId: number, addresses: string[]): Promise<Map<string, AllowListRecord>> {
  const result = new Map<string, AllowListRecord>();
  if (addresses.length === 0) return result;
  const rows = await read(source, (session) =>
    session.query<{ contract_address: string; owner: string; type: AllowListRecord['type']; access_list_id: string | null; addresses: string[] }>(
      sql`SELECT a.contract_address, a.owner, a.type, a.access_list_id::text,
                 ARRAY(SELECT x.address FROM allow_list_addresses AS x WHERE x.allow_list_id = a.id ORDER BY x.address) AS addresses
            FROM allow_lists AS a WHERE a.chain_id = ${chainId} AND a.contract_address = ANY(${pgArray(addresses)}::text[])`,
    ),
  );
  for (const row of rows) {
    result.set(row.contract_address, {
      kind: 'allowList',
      chainId,
      contractAddress: row.contract_address,
      owner: row.owner,
      type: row.type,
      accessListId: row.access_list_id,
      addresses: row.addresses,
    });
  }
  return result;
}

/** The chain's stored lists whose members an owner edits (SimpleAllowList, SimpleDenyList), by contract address. */
export async function storedEditableLists(source: ReadSource, chainId: number): Promise<Map<string, 'SimpleAllowList' | 'SimpleDenyList'>> {
  const rows = await read(source, (session) =>
    session.query<{ contract_address: string; type: 'SimpleAllowList' | 'SimpleDenyList' }>(
      sql`SELECT contract_address, type FROM allow_lists WHERE chain_id = ${chainId} AND type IN ('SimpleAllowList', 'SimpleDenyList')`,
    ),
  );
  return new Map(rows.map((row) => [row.contract_address, row.type]));
}

export interface StateWrite {
  checkpoint: Checkpoint;
  blocks: BlockRow[];
  journal: JournalEntry[];
  incentives: IncentiveRow[];
  /** Hashes and journal entries of blocks below this are no longer needed (deeper than a reorganisation can go). */
  forgetBelow: bigint;
}

/** In the writing transaction: the checkpoint with what it covers. */
export async function writeState(session: BulkSession, { chainId, core }: CoreId, state: StateWrite): Promise<void> {
  const { checkpoint } = state;
  await session.query(
    sql`INSERT INTO indexer_checkpoints (chain_id, core_address, block_number, block_hash, block_timestamp, updated_at)
        VALUES (${chainId}, ${core}, ${checkpoint.blockNumber.toString()}, ${checkpoint.blockHash}, ${checkpoint.blockTimestamp}, now())
        ON CONFLICT (chain_id, core_address) DO UPDATE
          SET block_number = excluded.block_number, block_hash = excluded.block_hash,
              block_timestamp = excluded.block_timestamp, updated_at = excluded.updated_at`,
  );
  if (state.blocks.length > 0) {
    await session.query(
      sql`INSERT INTO indexer_blocks (chain_id, core_address, block_number, block_hash)
          SELECT ${chainId}, ${core}, b.n::bigint, b.h FROM jsonb_to_recordset(${JSON.stringify(
            state.blocks.map((block) => ({ n: block.blockNumber.toString(), h: block.blockHash })),
          )}::jsonb) AS b(n text, h text)
          ON CONFLICT (chain_id, core_address, block_number) DO UPDATE SET block_hash = excluded.block_hash`,
    );
  }
  if (state.journal.length > 0) {
    await session.query(
      sql`INSERT INTO indexer_writes (chain_id, core_address, block_number, kind, natural_key, record)
          SELECT ${chainId}, ${core}, j.n::bigint, j.k, j.key, j.r FROM jsonb_to_recordset(${JSON.stringify(
            state.journal.map((entry) => ({ n: entry.blockNumber.toString(), k: entry.kind, key: entry.naturalKey, r: entry.record })),
          )}::jsonb) AS j(n text, k text, key text, r jsonb)
          ON CONFLICT (chain_id, core_address, kind, natural_key, block_number) DO NOTHING`,
    );
  }
  if (state.incentives.length > 0) {
    await session.query(
      sql`INSERT INTO indexer_incentives (chain_id, core_address, boost_id, incentive_id, address, position, block_number)
          SELECT ${chainId}, ${core}, i.b::numeric, i.i, i.a, i.p, i.n::bigint FROM jsonb_to_recordset(${JSON.stringify(
            state.incentives.map((row) => ({ b: row.boostId, i: row.incentiveId, a: row.address, p: row.position, n: row.blockNumber.toString() })),
          )}::jsonb) AS i(b text, i integer, a text, p smallint, n text)
          ON CONFLICT (chain_id, core_address, boost_id, incentive_id) DO UPDATE SET address = excluded.address, position = excluded.position`,
    );
  }
  const below = state.forgetBelow.toString();
  await session.query(sql`DELETE FROM indexer_blocks WHERE chain_id = ${chainId} AND core_address = ${core} AND block_number < ${below}`);
  await session.query(sql`DELETE FROM indexer_writes WHERE chain_id = ${chainId} AND core_address = ${core} AND block_number < ${below}`);
}

/**
 * The records that undo what blocks after `fork` wrote: for each natural key, the entry of the first
 * of those blocks that wrote it (a deletion if that block created it, else the record as it was before).
 */
export async function journalAfter(database: DatabaseHandle, { chainId, core }: CoreId, fork: bigint): Promise<(DeletionRecord | UpsertRecord)[]> {
  const rows = await read(database, (session) =>
    session.query<{ record: DeletionRecord | UpsertRecord }>(
      sql`SELECT record FROM (SELECT DISTINCT ON (kind, natural_key) record, block_number, kind, natural_key FROM indexer_writes
                               WHERE chain_id = ${chainId} AND core_address = ${core} AND block_number > ${fork.toString()}
                               ORDER BY kind, natural_key, block_number) AS first
           ORDER BY block_number, kind, natural_key`,
    ),
  );
  return rows.map((row) => row.record);
}

/**
 * The boosts whose incentives blocks after `fork` touched: those with a claim (a raffle draw too) the
 * blocks wrote, and those the blocks rewrote (an incentive's log, an incentive added). Read before
 * the rollback deletes the claims.
 */
export async function boostsTouchedAfter(database: DatabaseHandle, { chainId, core }: CoreId, fork: bigint): Promise<string[]> {
  const rows = await read(database, (session) =>
    session.query<{ boost_id: string }>(
      sql`SELECT c.identifier::text AS boost_id
            FROM indexer_writes AS w
            JOIN claims AS k ON k.chain_id = w.chain_id AND k.tx_hash = w.natural_key::jsonb->>'txHash'
                            AND k.log_index = (w.natural_key::jsonb->>'logIndex')::integer
            JOIN campaigns AS c ON c.key = k.campaign_key
           WHERE w.chain_id = ${chainId} AND w.core_address = ${core} AND w.kind = 'claim' AND w.block_number > ${fork.toString()}
          UNION
          SELECT w.natural_key::jsonb->>'identifier'
            FROM indexer_writes AS w
           WHERE w.chain_id = ${chainId} AND w.core_address = ${core} AND w.kind = 'campaign' AND w.block_number > ${fork.toString()}`,
    ),
  );
  return rows.map((row) => row.boost_id);
}

/** In the rollback's transaction: forget the orphaned blocks and move the checkpoint back to the fork. */
export async function rewindState(session: BulkSession, { chainId, core }: CoreId, fork: Checkpoint): Promise<void> {
  const after = fork.blockNumber.toString();
  for (const table of ['indexer_blocks', 'indexer_writes', 'indexer_incentives']) {
    await session.query(
      sql`DELETE FROM ${sql.identifier(table)} WHERE chain_id = ${chainId} AND core_address = ${core} AND block_number > ${after}`,
    );
  }
  await writeState(session, { chainId, core }, { checkpoint: fork, blocks: [{ blockNumber: fork.blockNumber, blockHash: fork.blockHash }], journal: [], incentives: [], forgetBelow: 0n });
}
