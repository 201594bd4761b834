import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import type { HistoryInterval } from '../schemas/history.js';

/** One of the campaign's incentives, with what it has paid since `from` and over the burn window. */
export interface HistoryIncentive {
  position: number;
  token: string | null;
  symbol: string | null;
  decimals: number | null;
  /** The budget as it stands now (on-chain balance plus what it paid), null for unbudgeted variants. */
  budget: string | null;
  /** Everything it has paid, claims and raffle draws. */
  paid: string;
  /** Paid by claims made at or after `from` (those after `to` too). */
  paidSinceFrom: string;
  /** Paid by claims made in the burn window's hours. */
  paidInBurnWindow: string;
}

export interface HistoryRows {
  /** historyVersion()'s version, read in the same snapshot as the rows. */
  version: string | null;
  incentives: HistoryIncentive[];
  /** Per bucket start (epoch ms) and incentive position with claims or draws: claims, amount and USD paid. */
  paid: [number, number, number, string, number][];
  /** Per bucket start with claims: distinct claimants, and addresses whose first claim of the campaign is in it. */
  people: [number, number, number][];
}

export interface HistoryWindow {
  interval: HistoryInterval;
  from: Date;
  to: Date;
  /** The burn window: whole UTC hours, `burnTo` being the start of the current one. */
  burnFrom: Date;
  burnTo: Date;
  now: Date;
}

/**
 * The version of everything a campaign's history is made of: its entry version (entry_versions), new
 * whenever the campaign, its incentives, their tokens or its claims change (a revaluation included),
 * from a sequence, so never given twice. Null when the campaign has no entry version yet.
 */
const historyVersion = (publicId: string) =>
  sql`(SELECT v.version::text FROM campaigns AS c JOIN entry_versions AS v ON v.campaign_key = c.key WHERE c.public_id = ${publicId})`;

/**
 * What a campaign's history is made of: campaign_history() (src/db/sql/campaign_history.sql) reads it
 * in one snapshot from `db`; apply_claim_history() brings its hours forward on `primary`.
 */
export function createHistoryRepository(db: Database, primary: Database = db) {
  return {
    /**
     * Applies the claim changes committed since the history tables' snapshot (apply_claim_history()).
     * False when another applier (another server) holds the lock: it applies them.
     */
    async applyClaimChanges(timeoutMs: number): Promise<boolean> {
      return primary.transaction(async (tx) => {
        // A background job's time budget, not an API request's: a large batch, or the recompute a
        // backlog or a bulk load calls for, runs longer than a read may, and one cut short would
        // leave the backlog to grow round after round.
        await tx.execute(sql`SELECT set_config('statement_timeout', ${String(timeoutMs)}, true)`);
        const [row] = await queryRows<{ applied: boolean }>(tx, sql`SELECT apply_claim_history() AS applied`);
        return row?.applied ?? false;
      });
    },

    /** The campaign's history version (see historyVersion), null without one; undefined for an unknown campaign. */
    async version(publicId: string): Promise<string | null | undefined> {
      const [row] = await queryRows<{ version: string | null }>(
        db,
        sql`SELECT v.version::text AS version FROM campaigns AS c LEFT JOIN entry_versions AS v ON v.campaign_key = c.key WHERE c.public_id = ${publicId}`,
      );
      return row === undefined ? undefined : row.version;
    },

    /** The campaign's history rows and their version; null for an unknown campaign. */
    async findHistory(publicId: string, { interval, from, to, burnFrom, burnTo }: HistoryWindow): Promise<HistoryRows | null> {
      // One statement, so one snapshot: campaign_history() is STABLE and reads in the statement's.
      const [row] = await queryRows<{ version: string | null; incentives: string; paid: string; people: string }>(
        db,
        sql`SELECT ${historyVersion(publicId)} AS version, h.* FROM campaign_history(${publicId}, ${interval}, ${from}, ${to}, ${burnFrom}, ${burnTo}) AS h`,
      );
      if (!row) return null;
      type IncentiveRow = [number, string | null, string | null, number | null, string | null, string, string, string];
      return {
        version: row.version,
        incentives: (JSON.parse(row.incentives) as IncentiveRow[]).map(
          ([position, token, symbol, decimals, budget, paid, paidSinceFrom, paidInBurnWindow]): HistoryIncentive => ({
            position,
            token,
            symbol,
            decimals,
            budget,
            paid,
            paidSinceFrom,
            paidInBurnWindow,
          }),
        ),
        paid: JSON.parse(row.paid) as HistoryRows['paid'],
        people: JSON.parse(row.people) as HistoryRows['people'],
      };
    },
  };
}

export type HistoryRepository = ReturnType<typeof createHistoryRepository>;
