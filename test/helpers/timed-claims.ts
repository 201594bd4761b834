import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import type pg from 'pg';
import type { Database } from '../../src/db/client.js';
import { claims } from '../../src/db/schema.js';
import { CLAIM_WINDOWS } from '../../src/claim-volumes/repository.js';
import { address } from './factories.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A claim of one of a test's campaigns (by index), at an offset from the test's origin instant. */
export interface TimedClaim {
  campaign: number;
  offsetMs: number;
  usdMicros: number;
}

/**
 * Claims of `campaigns` campaigns from 8 days before the origin to `maxAheadMs` after it, half of
 * them right at a window edge of the origin or of `laterMs` (on it, a millisecond either side),
 * where an off-by-one would show.
 */
export const timedClaimArbitrary = (campaigns: number, laterMs: number, maxAheadMs: number) =>
  fc.record<TimedClaim>({
    campaign: fc.nat({ max: campaigns - 1 }),
    offsetMs: fc.oneof(
      fc.integer({ min: -8 * DAY, max: maxAheadMs }),
      fc.constantFrom(
        ...[0, laterMs].flatMap((at) =>
          Object.values(CLAIM_WINDOWS).flatMap((length) => [at, at - length, at - length + 1, at - length - 1]),
        ),
      ),
    ),
    usdMicros: fc.integer({ min: 0, max: 1_000_000_000_000 }),
  });

/**
 * A later instant (up to `maxLaterMs` after the origin), the claims inserted before the first read
 * at the origin, and those inserted between it and the later read.
 */
export const timedScenarioArbitrary = (campaigns: number, maxLaterMs: number, maxAheadMs: number) =>
  fc
    .integer({ min: 0, max: maxLaterMs })
    .chain((laterMs) =>
      fc.tuple(
        fc.constant(laterMs),
        fc.array(timedClaimArbitrary(campaigns, laterMs, maxAheadMs), { maxLength: 30 }),
        fc.array(timedClaimArbitrary(campaigns, laterMs, maxAheadMs), { maxLength: 15 }),
      ),
    );

let nextLogIndex = 0;

/** Micro-dollars as the six-decimal string the claims table stores. */
export const usdText = (micros: number): string =>
  `${Math.floor(micros / 1_000_000)}.${(micros % 1_000_000).toString().padStart(6, '0')}`;

/** Inserts the claims, each of `campaignKeys[claim.campaign]`, at `origin + offsetMs`, with exact six-decimal USD values. */
export async function insertTimedClaims(db: Database, campaignKeys: number[], origin: number, rows: TimedClaim[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insert(claims).values(
    rows.map((row, index) => ({
      campaignKey: campaignKeys[row.campaign]!,
      chainId: sql<number>`(SELECT chain_id FROM campaigns WHERE key = ${campaignKeys[row.campaign]!})`,
      incentivePosition: 0,
      claimant: address(index + 1),
      amount: '1',
      usdValue: usdText(row.usdMicros),
      ethValueWei: '1',
      txHash: `0x${'0'.repeat(64)}`,
      // One transaction, many logs: the natural key (chain, transaction, log index) stays unique across calls.
      logIndex: nextLogIndex++,
      claimedAt: new Date(origin + row.offsetMs),
    })),
  );
}

/** The same through a plain connection, so that a test can hold the transaction open. */
export async function insertTimedClaimsOn(client: pg.ClientBase, campaignKeys: number[], origin: number, rows: TimedClaim[]): Promise<void> {
  for (const [index, row] of rows.entries()) {
    await client.query(
      `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
       VALUES ($1, (SELECT chain_id FROM campaigns WHERE key = $1), 0, $2, 1, $3, 1, $4, $5, $6)`,
      [campaignKeys[row.campaign], address(index + 1), usdText(row.usdMicros), `0x${'0'.repeat(64)}`, nextLogIndex++, new Date(origin + row.offsetMs)],
    );
  }
}
