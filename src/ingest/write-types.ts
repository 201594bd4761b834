import type { IngestRecord, RecordKind } from './records.js';

/** What both write paths take and give: ingest() (write.ts) and writeRecords() (direct.ts). */

/** A validated record and where it came from (the line of an import file, or a running count). */
export interface SourceRecord {
  line: number;
  key: string;
  record: IngestRecord;
}

/** One thing wrong with the input; `line` when it is about one record. */
export interface Problem {
  line?: number;
  message: string;
}

export class IngestError extends Error {
  constructor(readonly problems: Problem[]) {
    super(problems.map((problem) => (problem.line ? `line ${problem.line}: ${problem.message}` : problem.message)).join('\n'));
  }
}

export interface KindSummary {
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

export type IngestSummary = Record<RecordKind, KindSummary>;

/** How many problems of one sort are reported before stopping. */
export const PROBLEM_LIMIT = 10;

/** The problems found, in line order, at most PROBLEM_LIMIT of them. */
export function failWith(problems: Problem[]): never {
  throw new IngestError(problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)).slice(0, PROBLEM_LIMIT));
}
