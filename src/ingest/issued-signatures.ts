import { sql } from 'drizzle-orm';
import type { BulkSession, Database } from '../db/client.js';

/** A claim signature GET /signatures issued for a transaction. */
export interface IssuedSignatureRow {
  campaignKey: number;
  txHash: string;
  incentiveId: number;
  claimant: string;
  signature: string;
  referrer: string;
}

/**
 * Stores the signatures one request issued, in one transaction. A signature stored before (the
 * same claimant and incentive data signed for another of its transactions, or a concurrent request
 * for this one) is kept as it is: above all its `used` flag, which the indexer may have set.
 */
export async function recordIssuedSignatures(db: Database, rows: readonly IssuedSignatureRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(
    sql`INSERT INTO claim_signatures (campaign_key, tx_hash, incentive_id, claimant, signature, referrer)
        SELECT r.campaign_key, r.tx_hash, r.incentive_id, r.claimant, r.signature, r.referrer
          FROM json_to_recordset(${JSON.stringify(
            rows.map((row) => ({
              campaign_key: row.campaignKey,
              tx_hash: row.txHash,
              incentive_id: row.incentiveId,
              claimant: row.claimant,
              signature: row.signature,
              referrer: row.referrer,
            })),
          )}::json) AS r(campaign_key integer, tx_hash text, incentive_id smallint, claimant text, signature text, referrer text)
        ON CONFLICT (campaign_key, signature) DO NOTHING`,
  );
}

/**
 * In the indexer's writing transaction: the signatures of the claims it writes are used. An
 * incentive pays a claimant once, so every signature of that claimant and incentive is spent, not
 * only the one the claim carried.
 */
export async function markSignaturesUsed(
  session: BulkSession,
  claims: readonly { campaign: string; claimant: string; incentivePosition: number }[],
): Promise<void> {
  if (claims.length === 0) return;
  await session.query(
    sql`UPDATE claim_signatures AS g SET used = true
          FROM jsonb_to_recordset(${JSON.stringify(
            claims.map((claim) => ({ campaign: claim.campaign, claimant: claim.claimant.toLowerCase(), position: claim.incentivePosition })),
          )}::jsonb) AS r(campaign text, claimant text, position smallint)
          JOIN campaigns AS c ON c.public_id = r.campaign COLLATE "C"
         WHERE g.campaign_key = c.key AND g.claimant = r.claimant AND g.incentive_id = incentive_chain_id(c.key, r.position) AND NOT g.used`,
  );
}

/** A claim by its natural key, as a rollback's deletions name it. */
export interface ClaimKey {
  chainId: number;
  txHash: string;
  logIndex: number;
}

/**
 * In a rollback's writing transaction, before its deletions: the claimants and incentives of the
 * claims a reorganisation removes. The returned step, after the deletions, makes their signatures
 * unused again where no claim of that claimant and incentive is left: the chain no longer has the
 * claim, so the signature claims again.
 */
export async function signaturesOfRemovedClaims(session: BulkSession, claims: readonly ClaimKey[]): Promise<(session: BulkSession) => Promise<void>> {
  if (claims.length === 0) return async () => undefined;
  const holders = await session.query<{ campaign_key: number; claimant: string; position: number }>(
    sql`SELECT DISTINCT w.campaign_key, w.claimant, w.incentive_position AS position
          FROM jsonb_to_recordset(${JSON.stringify(claims.map((claim) => ({ chain_id: claim.chainId, tx_hash: claim.txHash.toLowerCase(), log_index: claim.logIndex })))}::jsonb)
               AS r(chain_id integer, tx_hash text, log_index integer)
          JOIN claims AS w ON w.chain_id = r.chain_id AND w.tx_hash = r.tx_hash AND w.log_index = r.log_index`,
  );
  return async (after) => {
    if (holders.length === 0) return;
    await after.query(
      sql`UPDATE claim_signatures AS g SET used = false
            FROM jsonb_to_recordset(${JSON.stringify(holders)}::jsonb) AS h(campaign_key integer, claimant text, position smallint)
           WHERE g.campaign_key = h.campaign_key AND g.claimant = h.claimant AND g.incentive_id = incentive_chain_id(h.campaign_key, h.position) AND g.used
             AND NOT EXISTS (SELECT 1 FROM claims AS w
                              WHERE w.campaign_key = h.campaign_key AND w.claimant = h.claimant AND w.incentive_position = h.position)`,
    );
  };
}
