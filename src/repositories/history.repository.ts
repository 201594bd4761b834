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

/** What a campaign's history is made of: campaign_history() (src/db/sql/campaign_history.sql) reads it in one snapshot. */
export function createHistoryRepository(db: Database) {
  return {
    async findHistory(publicId: string, { interval, from, to, burnFrom, burnTo }: HistoryWindow): Promise<HistoryRows | null> {
      const [row] = await queryRows<{ incentives: string; paid: string; people: string }>(
        db,
        sql`SELECT * FROM campaign_history(${publicId}, ${interval}, ${from}, ${to}, ${burnFrom}, ${burnTo})`,
      );
      if (!row) return null;
      type IncentiveRow = [number, string | null, string | null, number | null, string | null, string, string, string];
      return {
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
