import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import { mayAccess } from './claimant-access.js';

/** A campaign as GET /signatures checks a transaction against it. */
export interface SigningCampaign {
  key: number;
  chainId: number;
  /** The campaign's id in its core: the `boostId` a signature names. */
  boostId: string;
  validator: string;
  /** The block that created the campaign: a qualifying transaction comes after it. */
  blockNumber: number;
  active: boolean;
  actionClaimant: SigningActionClaimant | null;
  steps: SigningStep[];
  incentives: SigningIncentive[];
  /**
   * How many incentives the boost has on chain, those of types the service does not list included:
   * the `incentiveQuantity` a signature carries (the validator refuses an incentive id at or above it).
   */
  incentiveQuantity: number;
}

export interface SigningActionClaimant {
  signature: string;
  signatureType: 'event' | 'function';
  fieldIndex: number;
  targetContract: string;
  chainId: number;
}

export interface SigningStep {
  chainId: number;
  targetContract: string;
  signature: string;
  signatureType: 'event' | 'function';
  actionType: number;
  parameters: { filterType: number; fieldType: number; fieldIndex: number; filterData: string };
}

export interface SigningIncentive {
  position: number;
  /** The id BoostCore knows it by (incentive_chain_id()): what a signature names. */
  incentiveId: number;
  type: string;
  params: Record<string, unknown>;
  /** Claims so far, and the most it may pay by count (null: not limited by count). */
  totalClaims: number;
  claimLimit: string | null;
  /** What it paid. */
  totalAmountClaimed: string;
  /** The most it can pay (null: no token budget): what it holds once the indexer has read it, plus what it paid. */
  totalBudget: string | null;
}

/** A token's price (USD, decimal text) at an instant and its decimals, each null when not known. */
export interface PricedToken {
  priceUsd: string | null;
  decimals: number | null;
}

/** Where a claimant stands in the campaign: whether it may claim, and the incentives it claimed. */
export interface SigningClaimant {
  allowed: boolean;
  claimedPositions: number[];
}

export interface IssuedSignature {
  incentiveId: number;
  signature: string;
  claimant: string;
  referrer: string;
}

/** The two names of a chain's native token in prices and imports. */
const NATIVE_NAMES = ['0x0000000000000000000000000000000000000000', '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'] as const;

/** The reads of GET /signatures: the campaign's action and incentives, the claimant's standing, signatures issued before. */
export function createSignaturesRepository(db: Database) {
  return {
    async findCampaign(publicId: string, now: Date): Promise<SigningCampaign | null> {
      const [row] = await queryRows<SigningCampaign>(
        db,
        sql`SELECT c.key, c.chain_id AS "chainId", c.identifier::text AS "boostId", c.validator,
                   c.block_number::float8 AS "blockNumber",
                   campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, ${now}) AS active,
                   c.action_claimant AS "actionClaimant",
                   COALESCE((SELECT json_agg(json_build_object('chainId', s.chain_id, 'targetContract', s.target_contract, 'signature', s.signature,
                                                               'signatureType', s.signature_type, 'actionType', s.action_type, 'parameters', s.parameters)
                                             ORDER BY s.position)
                               FROM action_steps AS s WHERE s.campaign_key = c.key), '[]') AS steps,
                   COALESCE((SELECT json_agg(json_build_object('position', i.position, 'incentiveId', incentive_chain_id(c.key, i.position),
                                                               'type', i.type, 'params', i.params,
                                                               'totalClaims', i.total_claims, 'claimLimit', i.claim_limit::text,
                                                               'totalAmountClaimed', i.total_amount_claimed::text,
                                                               'totalBudget', i.total_budget::text)
                                             ORDER BY i.position)
                               FROM incentives AS i WHERE i.campaign_key = c.key), '[]') AS incentives,
                   GREATEST((SELECT count(*) FROM incentives AS i WHERE i.campaign_key = c.key),
                            (SELECT max(ii.incentive_id) + 1 FROM indexer_incentives AS ii
                              WHERE ii.chain_id = c.chain_id AND ii.core_address = c.core_address AND ii.boost_id = c.identifier))::int AS "incentiveQuantity"
              FROM campaigns AS c WHERE c.public_id = ${publicId}`,
      );
      return row ?? null;
    },

    async claimantStanding(campaignKey: number, claimant: string): Promise<SigningClaimant> {
      const [row] = await queryRows<SigningClaimant>(
        db,
        sql`SELECT ${mayAccess(claimant)} AS allowed,
                   ARRAY(SELECT DISTINCT w.incentive_position::int FROM claims AS w
                          WHERE w.claimant = ${claimant} AND w.campaign_key = c.key ORDER BY 1) AS "claimedPositions"
              FROM campaigns AS c WHERE c.key = ${campaignKey}`,
      );
      return row ?? { allowed: false, claimedPositions: [] };
    },

    /** The ABI items of the known-signatures registry with these ids (topics, and selectors padded to 32 bytes). */
    async abiItems(ids: string[]): Promise<Map<string, Record<string, unknown>>> {
      if (ids.length === 0) return new Map();
      const rows = await queryRows<{ id: string; abi_item: Record<string, unknown> }>(
        db,
        sql`SELECT id, abi_item FROM known_signatures WHERE id = ANY(${sql.param(ids)}::text[]) AND abi_item IS NOT NULL`,
      );
      return new Map(rows.map((row) => [row.id, row.abi_item]));
    },

    /**
     * Each token's price at `at` (token_price_at: the newest from the two hours before) and its
     * decimals (the native token's names: 18), in the order asked.
     */
    async pricesAt(chainId: number, addresses: string[], at: Date): Promise<PricedToken[]> {
      const rows = await queryRows<PricedToken & { address: string }>(
        db,
        sql`SELECT a.address, token_price_at(${chainId}, a.address, ${at})::text AS "priceUsd",
                   CASE WHEN a.address IN (${NATIVE_NAMES[0]}, ${NATIVE_NAMES[1]}) THEN 18
                        ELSE (SELECT t.decimals FROM tokens AS t WHERE t.chain_id = ${chainId} AND t.address = a.address) END AS decimals
              FROM unnest(${sql.param(addresses)}::text[]) AS a(address)`,
      );
      const byAddress = new Map(rows.map(({ address, ...priced }) => [address, priced]));
      return addresses.map((address) => byAddress.get(address) ?? { priceUsd: null, decimals: null });
    },

    /** The validators of the active campaigns, each once, those of the most recently created campaigns first. */
    async activeValidators(now: Date, limit: number): Promise<{ chainId: number; validator: string }[]> {
      return queryRows<{ chainId: number; validator: string }>(
        db,
        sql`SELECT c.chain_id AS "chainId", c.validator FROM campaigns AS c
             WHERE campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, ${now})
             GROUP BY 1, 2
             ORDER BY max(c.block_number) DESC, 1, 2
             LIMIT ${limit}`,
      );
    },

    /** What an earlier request issued for this transaction. */
    async issuedFor(campaignKey: number, txHash: string): Promise<IssuedSignature[]> {
      return queryRows<IssuedSignature>(
        db,
        sql`SELECT incentive_id AS "incentiveId", signature, claimant, referrer FROM claim_signatures
             WHERE campaign_key = ${campaignKey} AND tx_hash = ${txHash} ORDER BY incentive_id`,
      );
    },
  };
}

export type SignaturesRepository = ReturnType<typeof createSignaturesRepository>;
