import { sql } from 'drizzle-orm';
import type pg from 'pg';
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
 * Where a reader is in the claim change feed: the snapshot its state reflects (`pg_current_snapshot()`
 * as text) and the database's clock when it was taken.
 */
export interface FeedPosition {
  snapshot: string;
  atMs: number;
}

/**
 * Claims of consecutive campaigns, as columns: a chunk arrives as one row of arrays, not a row per
 * claim (arrays as parsed here, typed arrays when a worker thread read them: see load-worker.ts).
 */
export interface ClaimColumns {
  campaign_keys: ArrayLike<number>;
  claimed_at_us: ArrayLike<number>;
  usd_micros: ArrayLike<number>;
  /** 1 for a claim, 0 for a raffle draw: its value counts, it does not (a change of value alone). */
  signs: ArrayLike<number>;
  /** Each claim's claimant, as its index in the chunk's `claimants`. */
  claimant_indexes: ArrayLike<number>;
}

/** How many claims a load holds per minute: each minute's start (microseconds since the epoch) and count. */
export interface ClaimsPerMinute {
  starts_us: ArrayLike<number>;
  counts: ArrayLike<number>;
  /** How many campaigns there are: at least as many as the load's claims belong to, so room for the rows. */
  campaigns: number;
}

/**
 * A slice of what a load reads: the claims of a range of campaigns, and those campaigns' public IDs.
 * A load's first chunk holds no claims but `perMinute`, all of the load's claims counted by minute, so
 * that what keeps them can size its storage once instead of growing it.
 */
export interface ClaimChunk {
  campaigns: { keys: ArrayLike<number>; public_ids: string[] };
  /** The claimants of the chunk's claims, each once. */
  claimants: string[];
  claims: ClaimColumns;
  perMinute?: ClaimsPerMinute;
}

/** Where a load stopped: the feed position its claims are as of, and the campaign set's version then. */
export interface LoadedClaims {
  position: FeedPosition;
  version: string;
}

/**
 * Reads every claim made after `from` as of one snapshot, chunk by chunk (see the repository's
 * `load`). The repository does it on the caller's thread; `loadInWorker` on a worker thread, whose
 * garbage then never reaches the server's heap. `signal` abandons a load (the app closing).
 */
export type ClaimLoader = (
  from: Date,
  timeoutMs: number,
  onChunk: (chunk: ClaimChunk) => Promise<void> | void,
  signal?: AbortSignal,
) => Promise<LoadedClaims>;

/** A change from the feed; `sign` 0 says the claims were reloaded wholesale. */
/**
 * A change of the claim feed: a claim added (`sign` 1) or removed (-1), a change of one claim's value
 * alone (0, `usd_micros` the difference), or, without a campaign, a reload marker (the other fields
 * null too).
 */
export interface ClaimChangeRow {
  campaign_key: number | null;
  public_id: string | null;
  claimed_at_us: number;
  usd_micros: number;
  sign: -1 | 0 | 1;
  claimant: string | null;
}

export interface FeedChanges {
  position: FeedPosition;
  /** The campaign set's targets version (`campaign_set_version.targets`): which contracts campaigns target changes only with it. */
  version: string;
  /** Undefined when there were more than the caller can take at once: reload instead. */
  changes: ClaimChangeRow[] | undefined;
}

/** A named contract and the campaigns whose steps target it, with their block times. */
export interface TargetedContractRow {
  chain_id: number;
  address: string;
  name: string;
  campaign_keys: number[];
  block_timestamps: number[];
}

type FeedRow = ClaimChangeRow & { snapshot: string; at_ms: number; version: string };
/** The feed read on a session of its own: claim_changes_after() inlined into a named statement. */
const CHANGES_AFTER = 'SELECT * FROM claim_changes_after($1::pg_snapshot, $2)';

const position = sql`pg_current_snapshot()::text AS snapshot,
                     (EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::float8 AS at_ms,
                     (SELECT targets::text FROM campaign_set_version) AS version`;

export function createClaimWindowsRepository(db: Database) {
  return {
    /**
     * Every claim made after `from` (including those in the future), as of one snapshot, handed to
     * `onChunk` a range of campaign keys at a time (so that a week of claims never sits in memory
     * as one result), with the public IDs of those campaigns. Resolves with the feed position the
     * claims are as of.
     */
    async load(
      from: Date,
      timeoutMs: number,
      onChunk: (chunk: ClaimChunk) => Promise<void> | void,
      chunkSize: LoadChunkSize = LOAD_CHUNK,
    ): Promise<LoadedClaims> {
      return db.transaction(
        async (tx) => {
          // A background job: a job's time budget, not an API request's.
          await tx.execute(sql`SELECT set_config('statement_timeout', ${String(timeoutMs)}, true)`);
          // The first statement fixes the transaction's snapshot: the claims below are exactly those it shows.
          const [head] = await queryRows<{ snapshot: string; at_ms: number; version: string; max_key: number | null }>(
            tx,
            sql`SELECT ${position}, (SELECT max(key) FROM campaigns) AS max_key`,
          );
          const [perMinute] = await queryRows<ClaimsPerMinute>(
            tx,
            sql`SELECT coalesce(array_agg(minute_us ORDER BY minute_us), '{}') AS starts_us, coalesce(array_agg(claims ORDER BY minute_us), '{}') AS counts,
                   (SELECT count(*) FROM campaigns)::integer AS campaigns
                  FROM (SELECT (floor(EXTRACT(EPOCH FROM claimed_at) / 60) * 60000000)::float8 AS minute_us, count(*)::integer AS claims
                          FROM claims
                         WHERE claimed_at > ${from}
                         GROUP BY 1) AS minutes`,
          );
          await onChunk({
            campaigns: { keys: [], public_ids: [] },
            claimants: [],
            claims: { campaign_keys: [], claimed_at_us: [], usd_micros: [], signs: [], claimant_indexes: [] },
            perMinute: perMinute!,
          });
          // Within a range of keys, the claims after `after` (in the index's order): a busy campaign's
          // claims come in several chunks.
          let after: { key: number; claimedAt: string; id: string } | undefined;
          for (let low = 0; low <= (head!.max_key ?? -1); ) {
            const high = low + chunkSize.keys;
            const [claims] = await queryRows<ChunkRow>(
              tx,
              sql`WITH page AS (
                    SELECT campaign_key, claimed_at, id, usd_value, draw, claimant
                      FROM claims
                     WHERE campaign_key >= ${low} AND campaign_key < ${high} AND claimed_at > ${from}
                       ${after === undefined ? sql`` : sql`AND (campaign_key, claimed_at, id) > (${after.key}, ${after.claimedAt}::timestamptz, ${after.id}::bigint)`}
                     ORDER BY campaign_key, claimed_at, id
                     LIMIT ${chunkSize.claims})
                  SELECT coalesce(array_agg(campaign_key ORDER BY campaign_key, claimed_at, id), '{}') AS campaign_keys,
                         coalesce(array_agg((EXTRACT(EPOCH FROM claimed_at) * 1000000)::float8 ORDER BY campaign_key, claimed_at, id), '{}') AS claimed_at_us,
                         coalesce(array_agg((usd_value * 1000000)::float8 ORDER BY campaign_key, claimed_at, id), '{}') AS usd_micros,
                         coalesce(array_agg(CASE WHEN draw THEN 0 ELSE 1 END ORDER BY campaign_key, claimed_at, id), '{}') AS signs,
                         coalesce(array_agg(claimant ORDER BY campaign_key, claimed_at, id), '{}') AS claimants,
                         (SELECT json_build_object('key', campaign_key, 'claimedAt', claimed_at, 'id', id::text)
                            FROM page ORDER BY campaign_key DESC, claimed_at DESC, id DESC LIMIT 1) AS last
                    FROM page`,
            );
            // A full page may have more after it in this range; a short one ends the range.
            if (claims!.campaign_keys.length === chunkSize.claims) after = claims!.last!;
            else {
              after = undefined;
              low = high;
            }
            if (claims!.campaign_keys.length === 0) continue;
            const [campaigns] = await queryRows<{ keys: number[]; public_ids: string[] }>(
              tx,
              sql`SELECT coalesce(array_agg(key), '{}') AS keys, coalesce(array_agg(public_id), '{}') AS public_ids
                    FROM campaigns
                   WHERE key = ANY(${sql.param([...new Set(claims!.campaign_keys)])}::integer[])`,
            );
            const { campaign_keys, claimed_at_us, usd_micros, signs } = claims!;
            const { distinct, indexes } = eachOnce(claims!.claimants);
            await onChunk({ campaigns: campaigns!, claimants: distinct, claims: { campaign_keys, claimed_at_us, usd_micros, signs, claimant_indexes: indexes } });
          }
          return { position: { snapshot: head!.snapshot, atMs: head!.at_ms }, version: head!.version };
        },
        { isolationLevel: 'repeatable read', accessMode: 'read only' },
      );
    },

    /**
     * The changes committed since `since` (not visible in its snapshot, visible now), whatever order
     * their transactions committed in, with the new position. One statement, so one snapshot.
     */
    async changesSince(since: FeedPosition, limit = MAX_CHANGES, session?: pg.Client): Promise<FeedChanges> {
      // Through the pool, claim_changes_since() (src/db/sql/claim_changes_since.sql) keeps its plan per
      // server connection. On a session of its own (ClaimFeedListener's LISTEN connection, which is not
      // shared and runs on generic plans) the statement is a named one, with claim_changes_after()
      // inlined into it: no function call per poll. Its answer comes by callback, not node-postgres's
      // promise API, for the reason queryWithin (src/db/client.ts) gives: answers outliving a scavenge.
      const rows = session
        ? await new Promise<FeedRow[]>((resolve, reject) => {
            session.query<FeedRow>({ name: 'claim_changes_after', text: CHANGES_AFTER, values: [since.snapshot, limit] }, (error, result) =>
              error ? reject(error) : resolve(result.rows),
            );
          })
        : await queryRows<FeedRow>(db, sql`SELECT * FROM claim_changes_since(${since.snapshot}::pg_snapshot, ${limit})`);
      const head = rows[0]!;
      const changes = rows.filter((row) => row.sign !== null);
      return {
        position: { snapshot: head.snapshot, atMs: head.at_ms },
        version: head.version,
        changes: changes.length > limit ? undefined : changes,
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

/** The oldest claims a load reads: those of the longest window before `now`. */
export const loadFrom = (now: Date): Date => new Date(now.getTime() - LONGEST_MS);

/** How much one chunk of a load holds at most: the claims of `keys` consecutive campaign keys, at most `claims` of them. */
export interface LoadChunkSize {
  keys: number;
  claims: number;
}

interface ChunkRow {
  campaign_keys: number[];
  claimed_at_us: number[];
  usd_micros: number[];
  signs: number[];
  claimants: string[];
  /** The chunk's last claim, where the next chunk of the same keys starts after. */
  last: { key: number; claimedAt: string; id: string } | null;
}

/**
 * A chunk's arrays are parsed and applied in one go, blocking the event loop meanwhile, so a chunk
 * is small. Small enough that each array's text stays under V8's large-object size: a larger text
 * goes to the large-object space, outlives the parsing and stays there until a full collection,
 * and a load reads many chunks.
 *
 * The claims are bounded too: without a bound, a busy campaign's week of claims is one chunk of
 * megabytes of text, for which the driver grows its read buffer to match. Freeing a block that
 * large raises glibc's thresholds for returning memory to the system for the process's life, and
 * the server then keeps that much freed memory resident (docs/design.md, "Keeping per-request
 * garbage young").
 */
const LOAD_CHUNK: LoadChunkSize = { keys: 250, claims: 5_000 };

/** More changes than this at once (a bulk write) are cheaper to reload than to read from the feed. */
const MAX_CHANGES = 50_000;

/** The values each once, in the order first seen, and each value's index among them. */
function eachOnce(values: readonly string[]): { distinct: string[]; indexes: number[] } {
  const at = new Map<string, number>();
  const distinct: string[] = [];
  const indexes = values.map((value) => {
    let index = at.get(value);
    if (index === undefined) {
      index = distinct.length;
      at.set(value, index);
      distinct.push(value);
    }
    return index;
  });
  return { distinct, indexes };
}
