import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type DatabaseHandle, queryRows } from '../db/client.js';
import { writeRecords } from './direct.js';
import type { ClaimRecord } from './records.js';

/**
 * The demo's live claims (src/demo-live.ts): a new claim, as the chain would bring one, on the demo
 * data. It copies a claim of a campaign that is active now and shown by default (its tokens are
 * whitelisted), whose incentive can still pay it, and is made by a new claimant in a new
 * transaction at `now`. It goes through the direct write path, as an indexed block's claim does: the
 * triggers keep the campaign's totals and documents, the claim volumes' feed and the event log
 * (`claim.written`), so every reader sees it as it would see a claim from the chain.
 */

interface Model {
  campaignId: string;
  chainId: number;
  incentivePosition: number;
  amount: string;
  usdValue: string;
  ethValueWei: string;
}

/**
 * The claim to write at `now`, or undefined when no demo campaign can take one. Its model is the
 * first claim that qualifies from a random instant of the claims' span on: a campaign is chosen
 * about as often as it was claimed, so the hot campaigns of the demo data stay the hot ones, and the
 * choice costs index lookups however many claims the demo has written. (From a random id on, it
 * would not: the demo data's claims are written campaign by campaign, and the claim after a long
 * run of claims that do not qualify would be chosen most of the time.)
 */
export async function nextDemoClaim(database: DatabaseHandle, now: Date, random: () => number = Math.random): Promise<ClaimRecord | undefined> {
  const model = (await modelFrom(database, now, random())) ?? (await modelFrom(database, now, 0));
  if (model === undefined) return undefined;
  return {
    kind: 'claim',
    chainId: Number(model.chainId),
    txHash: `0x${randomBytes(32).toString('hex')}`,
    logIndex: 0,
    campaign: model.campaignId,
    incentivePosition: Number(model.incentivePosition),
    claimant: `0x${randomBytes(20).toString('hex')}`,
    amount: model.amount,
    usdValue: model.usdValue,
    ethValueWei: model.ethValueWei,
    claimedAt: now.toISOString(),
  };
}

/** The first claim from `fraction` of the way through the claims' span of time that a new claim at `now` may copy. */
async function modelFrom(database: DatabaseHandle, now: Date, fraction: number): Promise<Model | undefined> {
  // Values copied, not looked up: the demo's price history ends when its data was generated, and a
  // claim hours later would wait for a price and reach the streams with its value pending.
  const [model] = await queryRows<Model>(
    database.db,
    sql`SELECT c.public_id AS "campaignId", c.chain_id AS "chainId", cl.incentive_position AS "incentivePosition",
               cl.amount::text AS amount, cl.usd_value::text AS "usdValue", cl.eth_value_wei::text AS "ethValueWei"
          FROM claims AS cl
          JOIN campaigns AS c ON c.key = cl.campaign_key
          JOIN incentives AS i ON i.campaign_key = cl.campaign_key AND i.position = cl.incentive_position
         WHERE cl.claimed_at >= (SELECT min(claimed_at) + ${fraction}::float8 * (max(claimed_at) - min(claimed_at)) FROM claims)
           AND NOT cl.draw AND NOT cl.value_pending
           AND campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, ${now})
           AND c.pays_only_whitelisted_tokens
           AND (i.claim_limit IS NULL OR i.total_claims < i.claim_limit)
           AND (i.total_budget IS NULL OR i.total_amount_claimed + cl.amount <= i.total_budget)
         ORDER BY cl.claimed_at, cl.id
         LIMIT 1`,
  );
  return model;
}

/** Writes the next demo claim at `now`; returns it, or undefined when no demo campaign can take one. */
export async function writeDemoClaim(database: DatabaseHandle, now: Date): Promise<ClaimRecord | undefined> {
  const claim = await nextDemoClaim(database, now);
  if (claim) await writeRecords(database, [claim]);
  return claim;
}
