import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';

/**
 * The claim-volume windows the activity routes report, longest last. Windows are half-open:
 * a claim counts for `1h` at `now` when `now - 1h < claimed_at <= now`.
 */
export const CLAIM_WINDOWS = { '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000, '7d': 604_800_000 } as const;
export type ClaimWindow = keyof typeof CLAIM_WINDOWS;
export const WINDOW_NAMES = Object.keys(CLAIM_WINDOWS) as ClaimWindow[];
const LONGEST_MS = CLAIM_WINDOWS['7d'];

/**
 * Per window claim counts and USD volumes (in micro-dollars) of every campaign with claims in the
 * last seven days, as columns: a hundred thousand campaigns arrive as a few arrays, not as a hundred
 * thousand row objects.
 */
export interface WindowSnapshotColumns {
  campaign_keys: number[];
  public_ids: string[];
  /** Per window, in WINDOW_NAMES order. */
  claims: number[][];
  usd_micros: number[][];
}

export interface ClaimChangeRow {
  campaign_key: number;
  public_id: string;
  claimed_at_ms: number;
  usd_value: string;
  /** Inserted after the snapshot (id above its highest claim id). */
  is_new: boolean;
}

/** A named contract and the campaigns whose steps target it, with their block times. */
export interface TargetedContractRow {
  chain_id: number;
  address: string;
  name: string;
  campaign_keys: number[];
  block_timestamps: number[];
}

export function createClaimWindowsRepository(db: Database) {
  return {
    /**
     * Per campaign, claim counts and USD volumes in every window ending at `at`, counting only claims
     * up to the returned highest claim id: one pass over the last seven days of claims.
     */
    async snapshot(at: Date, timeoutMs: number): Promise<{ maxClaimId: string; version: string; columns: WindowSnapshotColumns }> {
      // One view of the database for both statements, and the time budget of a background job
      // rather than an API request's.
      return db.transaction(
        async (tx) => {
          await tx.execute(sql`SELECT set_config('statement_timeout', ${String(timeoutMs)}, true)`);
          const [head] = await queryRows<{ max_claim_id: string; version: string }>(
            tx,
            sql`SELECT coalesce(max(id), 0)::text AS max_claim_id, (SELECT value::text FROM campaign_set_version) AS version
                  FROM claims`,
          );
          const maxClaimId = head?.max_claim_id ?? '0';
          const [columns] = await queryRows<Record<string, unknown>>(tx, snapshotQuery(at, maxClaimId));
          return { maxClaimId, version: head?.version ?? '0', columns: toColumns(columns ?? {}) };
        },
        { isolationLevel: 'repeatable read', accessMode: 'read only' },
      );
    },

    /**
     * The claims whose membership in some window differs between the snapshot (`snapshotAt`,
     * `maxClaimId`) and `now`: claims inserted since, claims that were in the future at the snapshot,
     * and claims that have aged out of a window since. A few hundred rows when the snapshot is fresh.
     */
    async changesSince(snapshotAt: Date, maxClaimId: string, now: Date): Promise<{ version: string; rows: ClaimChangeRow[] }> {
      const leaving = WINDOW_NAMES.map(
        (name) =>
          sql`(w.claimed_at > ${new Date(snapshotAt.getTime() - CLAIM_WINDOWS[name])} AND w.claimed_at <= ${new Date(now.getTime() - CLAIM_WINDOWS[name])})`,
      );
      const rows = await queryRows<ClaimChangeRow & { version: string }>(
        db,
        sql`SELECT (SELECT value::text FROM campaign_set_version) AS version, changes.*
              FROM (SELECT 1) AS one
              LEFT JOIN LATERAL (
                SELECT w.campaign_key, c.public_id, (EXTRACT(EPOCH FROM w.claimed_at) * 1000)::float8 AS claimed_at_ms,
                       w.usd_value::text AS usd_value, w.id > ${maxClaimId} AS is_new
                  FROM claims AS w JOIN campaigns AS c ON c.key = w.campaign_key
                 WHERE (w.id > ${maxClaimId} AND w.claimed_at > ${new Date(now.getTime() - LONGEST_MS)} AND w.claimed_at <= ${now})
                    OR (w.id <= ${maxClaimId} AND (
                          (w.claimed_at > ${snapshotAt} AND w.claimed_at <= ${now}) OR ${sql.join(leaving, sql` OR `)}))
              ) AS changes ON true`,
      );
      return {
        version: rows[0]?.version ?? '0',
        rows: rows.filter((row) => row.campaign_key !== null),
      };
    },

    /** Every named contract some campaign's action steps target, with those campaigns. */
    async targetedContracts(): Promise<TargetedContractRow[]> {
      return queryRows<TargetedContractRow>(
        db,
        sql`SELECT k.chain_id, k.address, k.name,
                   array_agg(t.campaign_key ORDER BY t.campaign_key) AS campaign_keys,
                   array_agg(t.block_timestamp ORDER BY t.campaign_key) AS block_timestamps
              FROM (SELECT DISTINCT s.chain_id, s.target_contract, s.campaign_key, c.block_timestamp::float8 AS block_timestamp
                      FROM action_steps AS s JOIN campaigns AS c ON c.key = s.campaign_key) AS t
              JOIN contracts AS k ON k.chain_id = t.chain_id AND k.address = t.target_contract
             GROUP BY k.chain_id, k.address, k.name`,
      );
    },
  };
}

export type ClaimWindowsRepository = ReturnType<typeof createClaimWindowsRepository>;

/** Every window's count and USD sum per campaign, over claims up to `maxClaimId`: one pass over seven days. */
function snapshotQuery(at: Date, maxClaimId: string) {
  const filters = WINDOW_NAMES.map((name) => sql`claimed_at > ${new Date(at.getTime() - CLAIM_WINDOWS[name])}`);
  const windowColumns = (prefix: string, type: string) =>
    sql.join(
      WINDOW_NAMES.map((_, index) => sql`array_agg(${sql.identifier(`${prefix}${index}`)} ORDER BY w.campaign_key)::${sql.raw(type)}[]`),
      sql`, `,
    );
  return sql`SELECT array_agg(w.campaign_key ORDER BY w.campaign_key) AS campaign_keys,
                    array_agg(c.public_id ORDER BY w.campaign_key) AS public_ids,
                    ARRAY[${windowColumns('n', 'integer')}] AS claims,
                    ARRAY[${windowColumns('u', 'float8')}] AS usd_micros
               FROM (SELECT campaign_key,
                            ${sql.join(filters.map((filter, index) => sql`count(*) FILTER (WHERE ${filter})::integer AS ${sql.identifier(`n${index}`)}`), sql`, `)},
                            ${sql.join(filters.map((filter, index) => sql`(coalesce(sum(usd_value) FILTER (WHERE ${filter}), 0) * 1000000)::float8 AS ${sql.identifier(`u${index}`)}`), sql`, `)}
                       FROM claims
                      WHERE claimed_at > ${new Date(at.getTime() - LONGEST_MS)} AND claimed_at <= ${at} AND id <= ${maxClaimId}
                      GROUP BY campaign_key) AS w
               JOIN campaigns AS c ON c.key = w.campaign_key`;
}

/** Arrays of arrays come back as one flat array from some drivers; null when no campaign had claims. */
function toColumns(row: Record<string, unknown>): WindowSnapshotColumns {
  const keys = (row.campaign_keys as number[] | null) ?? [];
  const split = (value: unknown): number[][] => {
    const flat = ((value as unknown[] | null) ?? []).flat() as (number | string)[];
    return WINDOW_NAMES.map((_, window) => flat.slice(window * keys.length, (window + 1) * keys.length).map(Number));
  };
  return {
    campaign_keys: keys,
    public_ids: (row.public_ids as string[] | null) ?? [],
    claims: split(row.claims),
    usd_micros: split(row.usd_micros),
  };
}
