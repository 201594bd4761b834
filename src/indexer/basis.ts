import { sql } from 'drizzle-orm';
import type { BulkSession } from '../db/client.js';
import type { AllowListRecord, CampaignRecord } from '../ingest/records.js';
import { type CoreId, pgArray, storedAllowLists, storedCampaigns } from './store.js';

/**
 * Optimistic concurrency between the indexer and an operator's import. A batch's records are built
 * from stored campaigns and allow lists read before its RPC calls, outside the writing transaction:
 * their off-chain fields (names, images, templates, kept incentive params, step signature names,
 * an allow list's access list and members) are copied into the records. An import that changes one
 * of them in between would be overwritten with what was read. So the batch carries its basis, what
 * it read, and the writing transaction confirms it before merging: it locks those rows and reads them
 * again; any difference rolls the range back (nothing written, checkpoint unchanged) to be built again.
 *
 * What this does not cover: a row that did not exist at read time cannot be locked. If an import's
 * transaction inserts such a campaign or allow list and has not committed when the basis is
 * confirmed (or commits between the confirmation and the merge), the confirmation does not see it,
 * the indexer's upsert waits for that commit and then writes the record built without the import's
 * fields. That needs an import of a campaign the indexer has not written yet, committing during the
 * indexer's write of the block that creates it.
 */

export interface Basis {
  /** By boost id: the stored campaign a record was built from, or null when there was none. */
  campaigns: Map<string, CampaignRecord | null>;
  /** By contract address: the stored allow list a record was built from, or null when there was none. */
  allowLists: Map<string, AllowListRecord | null>;
}

export const emptyBasis = (): Basis => ({ campaigns: new Map(), allowLists: new Map() });

/** The first read of a key is what the records were built from; a later read of it must not hide a change in between. */
export function remember<T>(basis: Map<string, T | null>, key: string, stored: T | undefined): void {
  if (!basis.has(key)) basis.set(key, stored ?? null);
}

export class StaleBasisError extends Error {}

/**
 * In the writing transaction, before anything is merged: locks the basis' rows (allow lists, then
 * campaigns, as ingest merges them, each by primary key, so two writers take them in one order),
 * reads them again with the same readers and throws StaleBasisError when one differs.
 */
export async function confirmBasis(session: BulkSession, id: CoreId, basis: Basis): Promise<void> {
  const { chainId, core } = id;
  const addresses = [...basis.allowLists.keys()];
  const boostIds = [...basis.campaigns.keys()];
  if (addresses.length > 0) {
    await session.query(
      sql`SELECT 1 FROM allow_lists WHERE chain_id = ${chainId} AND contract_address = ANY(${pgArray(addresses)}::text[]) ORDER BY id FOR UPDATE`,
    );
  }
  if (boostIds.length > 0) {
    await session.query(
      sql`SELECT 1 FROM campaigns WHERE chain_id = ${chainId} AND core_address = ${core} AND identifier = ANY(${pgArray(boostIds)}::numeric[])
           ORDER BY key FOR UPDATE`,
    );
  }
  // Read committed: these statements see every import that committed before the locks were granted.
  const allowLists = await storedAllowLists(session, chainId, addresses);
  for (const [address, read] of basis.allowLists) {
    if (!same(read, allowLists.get(address))) {
      throw new StaleBasisError(`an import changed allow list ${chainId}:${address} while its blocks were read; reading them again`);
    }
  }
  const campaigns = await storedCampaigns(session, id, boostIds);
  for (const [boostId, read] of basis.campaigns) {
    if (!same(read, campaigns.get(boostId))) {
      throw new StaleBasisError(`an import changed campaign ${chainId}:${core}:${boostId} while its blocks were read; reading them again`);
    }
  }
}

/** Both come from the same reader, so equal records serialise to the same JSON (fields and jsonb keys in a fixed order). */
const same = (read: object | null, now: object | undefined) => JSON.stringify(read) === JSON.stringify(now ?? null);
