import type { BulkSession } from '../db/client.js';
import { isDeadlock } from '../db/errors.js';
import { missingIncentiveStatement, missingReferenceStatement, REFERENCES } from './checks.js';
import { deleteStatement, upsertStatement } from './merge.js';
import { childStatements } from './merge-children.js';
import { mergePrices } from './merge-prices.js';
import { RECORD_KINDS, type RecordKind } from './records.js';
import type { StagedRows } from './staged-rows.js';
import type { StagedCounts } from './staging.js';
import { failWith, IngestError, type IngestSummary, type Problem, PROBLEM_LIMIT } from './write-types.js';

/** The merge both write paths run, over records staged in tables (ingest()) or passed as parameters (writeRecords()). */

export interface MergeOptions {
  /** Into empty tables (BULK_TABLES): plain inserts, no conflicts to look for. */
  bulk?: boolean;
  /** Called after each statement, named by kind and step (`claim: upsert`). */
  onStep?: (step: string, ms: number) => void;
  /** Token records are facts read from the tokens' contracts (IngestOptions.tokensFromChain). */
  tokensFromChain?: boolean;
}

/** Upserts kind by kind in reference order (each checked against what is merged by then), then deletions in reverse. */
export async function mergeRecords(
  session: BulkSession,
  rows: StagedRows,
  counts: ReadonlyMap<RecordKind, StagedCounts>,
  { bulk = false, onStep = () => undefined, tokensFromChain = false }: MergeOptions = {},
): Promise<IngestSummary> {
  const timed = async <T>(step: string, work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const result = await work();
    onStep(step, Date.now() - started);
    return result;
  };
  const summary = Object.fromEntries(
    RECORD_KINDS.map(({ kind }) => [kind, { inserted: 0, updated: 0, deleted: 0, unchanged: 0 }]),
  ) as IngestSummary;
  for (const { kind } of RECORD_KINDS) {
    if (counts.get(kind)!.upserts === 0) continue;
    if (kind === 'price') {
      // The write path of prices, not a statement of merge.ts: the price job's rules and revaluation.
      Object.assign(summary.price, await timed('price: upsert', () => described(kind, () => mergePrices(session, rows))));
      continue;
    }
    await timed(`${kind}: check references`, () => checkReferences(session, rows, kind));
    const { sql: upsert, countsRows } = upsertStatement(kind, rows, bulk, tokensFromChain);
    const written = await timed(`${kind}: upsert`, () => run(session, rows, kind, upsert));
    if (countsRows) {
      const [{ inserted, updated }] = written as [{ inserted: number; updated: number }];
      summary[kind].inserted = inserted;
      summary[kind].updated = updated;
    }
    const children = childStatements(kind, rows, bulk);
    if (children.length > 0) {
      await timed(`${kind}: child rows`, async () => {
        for (const statement of children) await run(session, rows, kind, statement);
      });
    }
  }
  for (const { kind } of [...RECORD_KINDS].reverse()) {
    if (counts.get(kind)!.deletions === 0) continue;
    const [row] = (await run(session, rows, kind, deleteStatement(kind, rows))) as [{ deleted: number }];
    summary[kind].deleted = row.deleted;
  }
  for (const row of await rows.touched(session)) {
    summary[row.kind].inserted = row.inserted;
    summary[row.kind].updated = row.updated;
  }
  for (const { kind } of RECORD_KINDS) {
    const { upserts, deletions } = counts.get(kind)!;
    const done = summary[kind];
    done.unchanged = upserts + deletions - done.inserted - done.updated - done.deleted;
  }
  return summary;
}

async function checkReferences(session: BulkSession, rows: StagedRows, kind: RecordKind): Promise<void> {
  const problems: Problem[] = [];
  for (const check of REFERENCES[kind] ?? []) {
    const missing = await rows.run<{ line: string; value: string }>(session, missingReferenceStatement(kind, check, rows, PROBLEM_LIMIT));
    for (const row of missing) {
      problems.push({ line: Number(row.line), message: `${kind}.${check.field} ${row.value} is neither in the input nor in the database` });
    }
  }
  if (kind === 'claim' && problems.length === 0) {
    const missing = await rows.run<{ line: string; value: string }>(session, missingIncentiveStatement(rows, PROBLEM_LIMIT));
    for (const row of missing) problems.push({ line: Number(row.line), message: `claim.incentivePosition: the campaign has no incentive ${row.value}` });
  }
  if (problems.length > 0) failWith(problems);
}

/**
 * A constraint the database enforces (a deletion still referenced, say) becomes a problem in words.
 * A deadlock is no problem of the input: it stays what it is, for the writer to write again.
 */
async function run(session: BulkSession, rows: StagedRows, kind: RecordKind, statement: string): Promise<unknown[]> {
  return described(kind, () => rows.run(session, statement));
}

async function described<T>(kind: RecordKind, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isDeadlock(error) || error instanceof IngestError) throw error;
    const { message, detail } = error as { message?: string; detail?: string };
    throw new IngestError([{ message: `writing ${kind} records: ${message ?? String(error)}${detail ? ` (${detail})` : ''}` }]);
  }
}
