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
 * last seven days, as columns: a hundred thousand campaigns arrive as a few dozen rows of arrays,
 * not as a hundred thousand row objects.
 */
export interface WindowSnapshotColumns {
  campaign_keys: number[];
  public_ids: string[];
  /** Per window, in WINDOW_NAMES order. */
  claims: number[][];
  usd_micros: number[][];
}

/** What a snapshot is built from. */
export interface WindowSnapshot {
  maxClaimId: string;
  version: string;
  columns: WindowSnapshotColumns;
  /** Counted claims near a window's trailing edge, or in the future (see `snapshot`). */
  edges: ClaimChangeRow[];
}

/** A claim whose window membership can differ between the snapshot and a later instant. */
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
     * Everything a snapshot at `at` needs, in one view of the database: the highest claim id it
     * covers, the campaign set's version, the volumes per campaign and window (one pass over the
     * last seven days of claims), and the claims it counted that will leave a window, or are still
     * in the future, within `horizonMs` of `at`: a request up to then corrects the windows' trailing
     * edges from these, without the database.
     */
    async snapshot(at: Date, horizonMs: number, timeoutMs: number, chunkSize = SNAPSHOT_CHUNK): Promise<WindowSnapshot> {
      // A background job: one view for every statement, and a job's time budget, not an API request's.
      return db.transaction(
        async (tx) => {
          // Memory to aggregate a week of claims without spilling to disk (4 MB, the default, spilled ~40 MB at 1,000,000 claims).
          await tx.execute(
            sql`SELECT set_config('statement_timeout', ${String(timeoutMs)}, true), set_config('work_mem', ${SNAPSHOT_WORK_MEM}, true)`,
          );
          const [head] = await queryRows<{ max_claim_id: string; version: string }>(
            tx,
            sql`SELECT coalesce(max(id), 0)::text AS max_claim_id, (SELECT value::text FROM campaign_set_version) AS version
                  FROM claims`,
          );
          const maxClaimId = head?.max_claim_id ?? '0';
          const chunks = await queryRows<Record<string, unknown>>(tx, snapshotQuery(at, maxClaimId, chunkSize));
          const edges = await queryRows<ClaimChangeRow>(tx, edgeClaimsQuery(at, horizonMs, maxClaimId));
          return { maxClaimId, version: head?.version ?? '0', columns: concatColumns(chunks), edges };
        },
        { isolationLevel: 'repeatable read', accessMode: 'read only' },
      );
    },

    /** Claims inserted after the snapshot (a primary-key range, normally short), and the campaign set's version. */
    async claimsAfter(maxClaimId: string): Promise<{ version: string; rows: ClaimChangeRow[] }> {
      const rows = await queryRows<ClaimChangeRow & { version: string }>(
        db,
        sql`SELECT (SELECT value::text FROM campaign_set_version) AS version, w.campaign_key, c.public_id,
                   (EXTRACT(EPOCH FROM w.claimed_at) * 1000)::float8 AS claimed_at_ms, w.usd_value::text AS usd_value,
                   true AS is_new
              FROM (SELECT 1) AS one
              LEFT JOIN claims AS w ON w.id > ${maxClaimId}
              LEFT JOIN campaigns AS c ON c.key = w.campaign_key`,
      );
      return { version: rows[0]?.version ?? '0', rows: rows.filter((row) => row.campaign_key !== null) };
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

/** work_mem of the snapshot's transaction only. */
const SNAPSHOT_WORK_MEM = '64MB';

/** Campaign keys per row of the snapshot: a row's arrays are parsed in one go, blocking the event loop meanwhile. */
const SNAPSHOT_CHUNK = 1000;

/**
 * Every window's count and USD sum per campaign, over claims up to `maxClaimId`: one pass over
 * seven days. A row per `chunkSize` consecutive campaign keys (at most that many campaigns), in key order.
 */
function snapshotQuery(at: Date, maxClaimId: string, chunkSize: number) {
  const filters = WINDOW_NAMES.map((name) => sql`claimed_at > ${new Date(at.getTime() - CLAIM_WINDOWS[name])}`);
  const windowColumns = (prefix: string, type: string) =>
    sql.join(
      WINDOW_NAMES.map(
        (_, index) =>
          sql`array_agg(${sql.identifier(`${prefix}${index}`)} ORDER BY w.campaign_key)::${sql.raw(type)}[] AS ${sql.identifier(`${prefix}${index}`)}`,
      ),
      sql`, `,
    );
  return sql`SELECT array_agg(w.campaign_key ORDER BY w.campaign_key) AS campaign_keys,
                    array_agg(w.public_id ORDER BY w.campaign_key) AS public_ids,
                    ${windowColumns('n', 'integer')}, ${windowColumns('u', 'float8')}
               FROM (SELECT v.*, c.public_id, v.campaign_key / ${chunkSize} AS chunk
                       FROM (SELECT campaign_key,
                                    ${sql.join(filters.map((filter, index) => sql`count(*) FILTER (WHERE ${filter})::integer AS ${sql.identifier(`n${index}`)}`), sql`, `)},
                                    ${sql.join(filters.map((filter, index) => sql`(coalesce(sum(usd_value) FILTER (WHERE ${filter}), 0) * 1000000)::float8 AS ${sql.identifier(`u${index}`)}`), sql`, `)}
                               FROM claims
                              WHERE claimed_at > ${new Date(at.getTime() - LONGEST_MS)} AND claimed_at <= ${at} AND id <= ${maxClaimId}
                              GROUP BY campaign_key) AS v
                       JOIN campaigns AS c ON c.key = v.campaign_key) AS w
              GROUP BY w.chunk
              ORDER BY w.chunk`;
}

/**
 * Claims up to `maxClaimId` that leave a window between `at` and `at + horizonMs` (claimed in
 * (at - window, at - window + horizon]), or that are in the future at `at`. A claim in several
 * ranges is returned once.
 */
function edgeClaimsQuery(at: Date, horizonMs: number, maxClaimId: string) {
  const ranges = WINDOW_NAMES.map((name) => {
    const from = at.getTime() - CLAIM_WINDOWS[name];
    return sql`(w.claimed_at > ${new Date(from)} AND w.claimed_at <= ${new Date(from + horizonMs)})`;
  });
  return sql`SELECT w.campaign_key, c.public_id, (EXTRACT(EPOCH FROM w.claimed_at) * 1000)::float8 AS claimed_at_ms,
                    w.usd_value::text AS usd_value, false AS is_new
               FROM claims AS w JOIN campaigns AS c ON c.key = w.campaign_key
              WHERE w.id <= ${maxClaimId} AND (w.claimed_at > ${at} OR ${sql.join(ranges, sql` OR `)})`;
}

/** The chunks' columns end to end (one array per window and measure, as numbers). */
function concatColumns(chunks: Record<string, unknown>[]): WindowSnapshotColumns {
  const columns: WindowSnapshotColumns = {
    campaign_keys: [],
    public_ids: [],
    claims: WINDOW_NAMES.map(() => []),
    usd_micros: WINDOW_NAMES.map(() => []),
  };
  const append = (into: number[], values: unknown) => {
    for (const value of values as (number | string)[]) into.push(Number(value));
  };
  for (const chunk of chunks) {
    append(columns.campaign_keys, chunk.campaign_keys);
    columns.public_ids.push(...(chunk.public_ids as string[]));
    WINDOW_NAMES.forEach((_, window) => {
      append(columns.claims[window]!, chunk[`n${window}`]);
      append(columns.usd_micros[window]!, chunk[`u${window}`]);
    });
  }
  return columns;
}
