import type { IngestRecord } from './records.js';
import { validateRecord } from './validate.js';
import type { SourceRecord } from './write.js';

/**
 * Records held in memory as an ingest source, each validated as an import's line is (a record that
 * fails throws `invalid`'s error: for the indexer, a bug of its own).
 */
export async function* memorySource(
  records: Iterable<IngestRecord>,
  invalid: (record: IngestRecord, error: string) => Error = (_record, error) => new Error(error),
): AsyncGenerator<SourceRecord> {
  let line = 0;
  for (const record of records) {
    const validated = validateRecord(record);
    if (!validated.ok) throw invalid(record, validated.error);
    yield { line: ++line, key: validated.key, record: validated.record };
  }
}
