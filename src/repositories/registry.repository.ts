import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import type { PageRequest } from '../schemas/common.js';
import type { ClaimableSignatureList, KnownSignaturePage } from '../schemas/registry.js';
import { isActiveAt } from './campaign-filters.js';

/** The most unused signatures an address is shown: every answer is bounded. */
export const MAX_CLAIMABLE_SIGNATURES = 100;

/** Known signatures, the token blocklist and an address's claimable signatures: each one indexed read. */
export function createRegistryRepository(db: Database) {
  return {
    /** A page of known signatures in ID order (the primary key), and how many there are. */
    async listKnownSignatures(page: PageRequest): Promise<KnownSignaturePage> {
      const rows = await queryRows<{ total: number; id: string | null; text_signature: string; abi_item: Record<string, unknown> | null; signature_type: 'event' | 'function' }>(
        db,
        sql`SELECT (SELECT count(*)::integer FROM known_signatures) AS total, k.id, k.text_signature, k.abi_item, k.signature_type
              FROM (SELECT 1) AS one
              LEFT JOIN (SELECT * FROM known_signatures ORDER BY id LIMIT ${page.limit} OFFSET ${page.offset}) AS k ON true
             ORDER BY k.id`,
      );
      return {
        signatures: rows
          .filter((row) => row.id !== null)
          .map((row) => ({
            id: row.id!,
            textSignature: row.text_signature,
            ...(row.abi_item === null ? {} : { abiItem: row.abi_item }),
            signatureType: row.signature_type,
          })),
        count: rows[0]?.total ?? 0,
      };
    },

    async isTokenBlocked(chainId: number, address: string): Promise<boolean> {
      const [row] = await queryRows<{ blocked: boolean }>(
        db,
        sql`SELECT EXISTS (SELECT 1 FROM tokens WHERE chain_id = ${chainId} AND address = ${address} AND is_blocked) AS blocked`,
      );
      return row?.blocked ?? false;
    },

    /** `claimant`'s unused signatures on campaigns active at `now`, newest first (claim_signatures_unused_idx). */
    async listClaimableSignatures(claimant: string, now: Date): Promise<ClaimableSignatureList> {
      const rows = await queryRows<{ public_id: string; signature: string; incentive_id: number; referrer: string }>(
        db,
        sql`SELECT c.public_id, g.signature, g.incentive_id, g.referrer
              FROM claim_signatures AS g
              JOIN campaigns AS c ON c.key = g.campaign_key
             WHERE g.claimant = ${claimant} AND NOT g.used AND ${isActiveAt(now)}
             ORDER BY g.id DESC
             LIMIT ${MAX_CLAIMABLE_SIGNATURES}`,
      );
      return rows.map((row) => ({
        campaignId: row.public_id,
        signature: row.signature,
        claimant,
        incentiveId: row.incentive_id,
        referrer: row.referrer,
      }));
    },
  };
}

export type RegistryRepository = ReturnType<typeof createRegistryRepository>;
