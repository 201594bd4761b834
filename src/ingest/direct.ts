import type { BulkSession, DatabaseHandle } from '../db/client.js';
import { mergeRecords } from './merge-records.js';
import { lockChainsOfRecords } from './price-locks.js';
import { type IngestRecord, RECORD_KINDS, type RecordKind } from './records.js';
import { ParameterRows } from './staged-rows.js';
import type { StagedCounts } from './staging.js';
import { validateRecord } from './validate.js';
import { failWith, type IngestSummary, type Problem, type SourceRecord } from './write-types.js';

/**
 * The direct write path: records held in memory, a few of them (the chain indexer's block range,
 * its rollback), written in one transaction without staging tables. The same validation, natural
 * keys and merge statements as ingest() (write.ts), each reading the records from a parameter; the
 * triggers keep the derived state and record each claim in the claim feed as they do for any live
 * write. What the staging tables cost, thirteen temporary tables created, analyzed and dropped per
 * transaction, is what a range of one claim would otherwise pay.
 */

export interface DirectWriteOptions {
  /** Token records are facts read from the tokens' contracts (IngestOptions.tokensFromChain). */
  tokensFromChain?: boolean;
  /**
   * Runs in the writing transaction after the records are checked, before anything is merged: the
   * indexer locks and reads again here the stored rows its records were built from, and throws when
   * an import changed them (src/indexer/basis.ts); the transaction then rolls back and nothing is written.
   */
  beforeMerge?: (session: BulkSession) => Promise<void>;
  /** In the writing transaction, after the merge, before the commit: the indexer's checkpoint commits with its blocks' data. */
  beforeCommit?: (session: BulkSession, summary: IngestSummary) => Promise<void>;
  /** The error for a record that fails validation (for the indexer, a bug of its own). */
  invalid?: (record: IngestRecord, error: string) => Error;
}

export async function writeRecords(database: DatabaseHandle, records: readonly IngestRecord[], options: DirectWriteOptions = {}): Promise<IngestSummary> {
  const invalid = options.invalid ?? ((_record: IngestRecord, error: string) => new Error(error));
  const validated: SourceRecord[] = records.map((record, index) => {
    const result = validateRecord(record);
    if (!result.ok) throw invalid(record, result.error);
    return { line: index + 1, key: result.key, record: result.record };
  });
  refuseDuplicateKeys(validated);
  const rows = new ParameterRows(validated);
  return database.bulkTransaction(async (session) => {
    // Before the merge values claims, and before beforeMerge locks campaign rows (src/ingest/price-locks.ts).
    await lockChainsOfRecords(session, validated.map(({ record }) => record));
    await options.beforeMerge?.(session);
    const summary = await mergeRecords(session, rows, countsOf(validated), { tokensFromChain: options.tokensFromChain });
    await options.beforeCommit?.(session, summary);
    return summary;
  });
}

/** As ingest() says of a staged input: a natural key given twice is refused, naming both lines. */
function refuseDuplicateKeys(records: readonly SourceRecord[]): void {
  const first = new Map<string, number>();
  const problems: Problem[] = [];
  for (const { line, key, record } of records) {
    const seen = first.get(`${record.kind} ${key}`);
    if (seen === undefined) first.set(`${record.kind} ${key}`, line);
    else problems.push({ line, message: `${record.kind} ${key} is given again (first on line ${seen})` });
  }
  if (problems.length > 0) failWith(problems);
}

function countsOf(records: readonly SourceRecord[]): Map<RecordKind, StagedCounts> {
  const counts = new Map<RecordKind, StagedCounts>(RECORD_KINDS.map(({ kind }) => [kind, { upserts: 0, deletions: 0 }]));
  for (const { record } of records) {
    const count = counts.get(record.kind)!;
    if (record.deleted === true) count.deletions++;
    else count.upserts++;
  }
  return counts;
}
