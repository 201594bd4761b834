import type { Readable } from 'node:stream';
import { readLines, TruncatedInputError } from './ndjson.js';
import { validateRecord } from './validate.js';
import type { DatabaseHandle } from '../db/client.js';
import { IngestError, type IngestOptions, type IngestSummary, type Problem, type SourceRecord, ingest } from './write.js';

/** How many bad lines are listed before giving up on the input. */
const PROBLEM_LIMIT = 10;

/**
 * The records of an NDJSON stream, validated one line at a time. After the first bad line nothing
 * more is handed on (the transaction will be rolled back anyway), but reading goes on to list up to
 * ten bad lines, so that one run shows the operator more than the first mistake.
 */
export async function* recordsFromNdjson(input: Readable, onBytes?: (bytes: number) => void): AsyncGenerator<SourceRecord> {
  const problems: Problem[] = [];
  try {
    for await (const { number, text } of readLines(input, onBytes)) {
      const problem = parseLine(text);
      if (typeof problem === 'string') {
        problems.push({ line: number, message: problem });
        if (problems.length >= PROBLEM_LIMIT) break;
        continue;
      }
      if (problems.length === 0) yield { line: number, ...problem };
    }
  } catch (error) {
    if (!(error instanceof TruncatedInputError)) throw error;
    problems.push({ line: error.lineNumber, message: error.message });
  }
  if (problems.length > 0) throw new IngestError(problems);
}

function parseLine(text: string): Omit<SourceRecord, 'line'> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  // PostgreSQL text cannot hold U+0000; say so here rather than fail the whole COPY later.
  if (text.includes('\\u0000')) return 'a string holds the NUL character (\\u0000), which the database cannot store';
  const result = validateRecord(value);
  return result.ok ? { key: result.key, record: result.record } : result.error;
}

/** An NDJSON stream through the write path: what `npm run import` does. */
export function importNdjson(database: DatabaseHandle, input: Readable, options: IngestOptions & { onBytes?: (bytes: number) => void } = {}): Promise<IngestSummary> {
  return ingest(database, recordsFromNdjson(input, options.onBytes), options);
}
