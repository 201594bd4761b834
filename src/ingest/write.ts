import { sql } from 'drizzle-orm';
import type { BulkSession, DatabaseHandle } from '../db/client.js';
import { setAsideIndexesAndConstraints } from './bulk-load.js';
import { duplicateKeyStatement } from './checks.js';
import { retryingDeadlocks } from './deadlock-retry.js';
import { BULK_TABLES } from './merge.js';
import { mergeRecords } from './merge-records.js';
import { lockChainsOfStagedRecords } from './price-locks.js';
import { RECORD_KINDS } from './records.js';
import { stagingTables } from './staged-rows.js';
import { createStagingTables, Stager, stageTable } from './staging.js';
import { failWith, type IngestSummary, type Problem, PROBLEM_LIMIT, type SourceRecord } from './write-types.js';

export { DEADLOCK_ATTEMPTS } from './deadlock-retry.js';
export { IngestError, type IngestSummary, type KindSummary, type Problem, type SourceRecord } from './write-types.js';

/**
 * The write path of an input of any size (docs/writing-data.md). Records, validated by their kind's
 * schema, go into the database by natural key in one transaction: all of them or none, and readers
 * see the state before or the state after, never a part. The import command and the seed
 * generator's data come through here; the chain indexer's few records of a block range take the
 * direct path (direct.ts), which runs the same merge without staging tables.
 */

export type IngestPhase = 'stage' | 'check' | 'merge' | 'rebuild indexes' | 'derive';

/**
 * Records up to which an input is written live unless the caller says otherwise. Live, each claim
 * reaches the API replicas through the claim feed, which they read in one poll; deferred, the
 * commit makes every replica reload a week of claims, and the end of the write recomputes every
 * campaign's derived state whatever the input's size. Above it, one poll of the feed would hold the
 * replicas longer than a reload (which runs beside the state that keeps answering); the feed itself
 * reloads above 50,000 changes (src/claim-volumes/repository.ts).
 */
export const LIVE_WRITE_RECORDS = 10_000;

export interface IngestOptions {
  /**
   * `deferred`: the triggers leave the derived state (claim totals, flags, documents) alone during
   * the transaction, and it is recomputed once, set-based, before the commit, as the seed writer
   * does, and the claim feed gets one reload marker: right for large inputs. `live`: the triggers
   * keep it statement by statement, and the feed gets each claim: right for small batches (the
   * indexer's, a small import). By default, live for an input of at most `liveUpTo` records.
   */
  derived?: 'deferred' | 'live';
  /** The largest input written live when `derived` is not given (LIVE_WRITE_RECORDS). */
  liveUpTo?: number;
  /** Validate, check and merge, then roll back: nothing is written. */
  dryRun?: boolean;
  /**
   * The token records are facts the indexer read from the tokens' contracts: they set `decimals`,
   * which no import changes afterwards, and fill in a name or symbol the stored row does not have;
   * the stored row's other fields stay (src/ingest/merge.ts). An import never sets this.
   */
  tokensFromChain?: boolean;
  /** Called after each staged record (cheap; the caller throttles what it shows). */
  onRecord?: (count: number) => void;
  onPhase?: (phase: IngestPhase, ms: number) => void;
  /** Called after each statement of the merge, named by kind and step (`claim: upsert`). */
  onStep?: (step: string, ms: number) => void;
  /**
   * Runs in the writing transaction after the records are merged and derived, before the commit:
   * what must commit with the records, or nothing.
   */
  beforeCommit?: (session: BulkSession, summary: IngestSummary) => Promise<void>;
  /**
   * Called when PostgreSQL failed a statement of the write to break a deadlock with another writer,
   * before the write is tried again (attempt is the one that failed; at most DEADLOCK_ATTEMPTS).
   */
  onRetry?: (attempt: number, error: Error) => void;
}

class DryRunRollback extends Error {
  constructor(readonly summary: IngestSummary) {
    super('dry run');
  }
}

export async function ingest(database: DatabaseHandle, source: AsyncIterable<SourceRecord>, options: IngestOptions = {}): Promise<IngestSummary> {
  const phase = async <T>(name: IngestPhase, work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const result = await work();
    options.onPhase?.(name, Date.now() - started);
    return result;
  };
  try {
    return await database.bulkTransaction(async (session) => {
      await session.query(sql`SELECT set_config('work_mem', '128MB', true)`);
      await createStagingTables(session);
      const stager = new Stager(session);
      let count = 0;
      await phase('stage', async () => {
        for await (const { line, key, record } of source) {
          await stager.add(line, key, record);
          count += 1;
          options.onRecord?.(count);
        }
        await stager.flush();
      });
      // Staging writes only its own temporary tables: no trigger has run yet.
      const derived = options.derived ?? (count <= (options.liveUpTo ?? LIVE_WRITE_RECORDS) ? 'live' : 'deferred');
      if (derived === 'deferred') await session.query(sql`SELECT set_config('campaign_service.defer_refresh', 'on', true)`);
      await phase('check', () => checkDuplicates(session));
      // Before the merge values claims or records prices: a price write holds this lock while its
      // triggers lock campaign rows, so both take them in this order (src/ingest/price-locks.ts).
      await lockChainsOfStagedRecords(session);
      // Everything from here is written again, whole, when PostgreSQL breaks a deadlock with another
      // writer by failing a statement of this one (deadlock-retry.ts).
      return retryingDeadlocks(session, () => write(session, stager.counts, derived, phase, options), options.onRetry);
    });
  } catch (error) {
    if (error instanceof DryRunRollback) return error.summary;
    throw error;
  }
}

/** The staged records into the tables, what they derive, and the caller's beforeCommit. */
async function write(
  session: BulkSession,
  staged: Stager['counts'],
  derived: 'deferred' | 'live',
  phase: <T>(name: IngestPhase, work: () => Promise<T>) => Promise<T>,
  options: IngestOptions,
): Promise<IngestSummary> {
  // Loading an empty database: the large tables get their indexes and constraints rebuilt
  // once at the end (a sorted build is far faster than a million index insertions), as the seed
  // writer does. It takes those tables for the transaction: readers of them wait until the commit.
  const [{ empty } = { empty: false }] = await session.query<{ empty: boolean }>(
    sql.raw(`SELECT ${BULK_TABLES.map((table) => `NOT EXISTS (SELECT 1 FROM ${table})`).join(' AND ')} AS empty`),
  );
  const restore = empty ? await setAsideIndexesAndConstraints(session, BULK_TABLES) : [];
  const summary = await phase('merge', () =>
    mergeRecords(session, stagingTables, staged, { bulk: empty, onStep: options.onStep, tokensFromChain: options.tokensFromChain }),
  );
  if (restore.length > 0) {
    await phase('rebuild indexes', async () => {
      for (const statement of restore) await session.query(sql.raw(statement));
    });
  }
  const changed = Object.values(summary).some((counts) => counts.inserted + counts.updated + counts.deleted > 0);
  if (derived === 'deferred') await phase('derive', () => deriveAll(session, changed));
  if (options.dryRun) throw new DryRunRollback(summary);
  await options.beforeCommit?.(session, summary);
  return summary;
}

async function checkDuplicates(session: BulkSession): Promise<void> {
  const problems: Problem[] = [];
  for (const { kind } of RECORD_KINDS) {
    await session.query(sql.raw(`ANALYZE ${stageTable(kind)}`));
    const rows = await session.query<{ key: string; first: string; again: string }>(sql.raw(duplicateKeyStatement(kind, PROBLEM_LIMIT)));
    for (const row of rows) {
      problems.push({ line: Number(row.again), message: `${kind} ${row.key} is given again (first on line ${row.first})` });
    }
  }
  if (problems.length > 0) failWith(problems);
}

/**
 * What the seed writer does at its end: claim totals from the claims, then every campaign's flags and
 * documents (both write only what differs). The triggers skipped their version bumps while deferred,
 * so one bump stands for them, unless nothing changed: then cached counts stay valid.
 */
async function deriveAll(session: BulkSession, changed: boolean): Promise<void> {
  await session.query(sql`ANALYZE campaigns, incentives, claims, action_steps, allow_lists, allow_list_addresses, tokens`);
  // Still deferred: the totals' own update must not set off a refresh of its own.
  await session.query(sql`SELECT recompute_incentive_totals(), recompute_claim_history()`);
  await session.query(sql`SELECT set_config('campaign_service.defer_refresh', 'off', true)`);
  await session.query(sql`SELECT refresh_campaigns(NULL)`);
  if (changed) await session.query(sql`SELECT bump_campaign_set_version()`);
}
