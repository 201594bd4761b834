import { type SQL, sql } from 'drizzle-orm';
import type { BulkSession } from '../db/client.js';
import type { RecordKind } from './records.js';
import { CLAIM_STAGING_COLUMNS, stagedColumns, stageTable } from './staging.js';
import type { SourceRecord } from './write-types.js';

/**
 * Where the merge's statements (merge.ts, merge-children.ts, checks.ts) read the records of a kind,
 * and where they note the parents whose child rows changed. ingest() stages an input of any size in
 * temporary tables (staging.ts), analyzed and checked with SQL; writeRecords() (direct.ts) passes the
 * few records it holds in memory to each statement as one parameter, and collects the changed
 * parents from what the statements return. The statements are the same text either way.
 */
export interface StagedRows {
  /** A FROM item with the kind's records: line, deleted, key, then `record` (jsonb) or a claim's typed columns. */
  of(kind: RecordKind): string;
  /** The same FROM item in a query built with drizzle's `sql` (the write path of prices, src/ingest/prices.ts). */
  relation(kind: RecordKind): SQL;
  /** Notes the changed parents that `select` gives as (kind, key, change). */
  touch(select: string): string;
  /** Runs a statement built with `of` and `touch`. */
  run<Row>(session: BulkSession, statement: string): Promise<Row[]>;
  /** By kind, the distinct keys noted as inserted and the others noted. */
  touched(session: BulkSession): Promise<{ kind: RecordKind; inserted: number; updated: number }[]>;
}

/** The temporary tables of staging.ts, and the table `ingest_touched` beside them. */
export const stagingTables: StagedRows = {
  of: stageTable,
  relation: (kind) => sql.raw(stageTable(kind)),
  touch: (select) => `INSERT INTO ingest_touched (kind, key, change) ${select}`,
  run: (session, statement) => session.query(sql.raw(statement)),
  touched: (session) =>
    session.query(
      sql.raw(`SELECT kind, count(DISTINCT key) FILTER (WHERE change = 'inserted')::integer AS inserted,
                      (count(DISTINCT key) - count(DISTINCT key) FILTER (WHERE change = 'inserted'))::integer AS updated
                 FROM ingest_touched GROUP BY kind`),
    ),
};

const ROWS_MARKER = /\/\*rows:(\w+)\*\//g;
const TOUCH_MARKER = '/*touched*/';

/** Records held in memory, as the parameter of each statement that reads them. */
export class ParameterRows implements StagedRows {
  private readonly byKind = new Map<RecordKind, string>();
  private readonly noted = new Map<RecordKind, Map<string, boolean>>();

  constructor(records: readonly SourceRecord[]) {
    const rows = new Map<RecordKind, object[]>();
    for (const { line, key, record } of records) {
      const deleted = record.deleted === true;
      const fields = record as unknown as Record<string, unknown>;
      const row: object =
        record.kind === 'claim'
          ? { line, deleted, key, ...Object.fromEntries(CLAIM_STAGING_COLUMNS.map(([column, , field]) => [column, fields[field] ?? null])) }
          : { line, deleted, key, record };
      const list = rows.get(record.kind) ?? [];
      list.push(row);
      rows.set(record.kind, list);
    }
    for (const [kind, list] of rows) this.byKind.set(kind, JSON.stringify(list));
  }

  of(kind: RecordKind): string {
    return `/*rows:${kind}*/`;
  }

  relation(kind: RecordKind): SQL {
    return this.bind(this.of(kind));
  }

  touch(select: string): string {
    return `${TOUCH_MARKER} ${select}`;
  }

  async run<Row>(session: BulkSession, statement: string): Promise<Row[]> {
    const rows = await session.query<Row>(this.bind(statement));
    if (statement.includes(TOUCH_MARKER)) {
      for (const { kind, key, change } of rows as { kind: RecordKind; key: string; change: string }[]) {
        const keys = this.noted.get(kind) ?? new Map<string, boolean>();
        keys.set(key, keys.get(key) === true || change === 'inserted');
        this.noted.set(kind, keys);
      }
    }
    return rows;
  }

  async touched(): Promise<{ kind: RecordKind; inserted: number; updated: number }[]> {
    return [...this.noted].map(([kind, keys]) => {
      const inserted = [...keys.values()].filter(Boolean).length;
      return { kind, inserted, updated: keys.size - inserted };
    });
  }

  /** The statement with each marker a subquery over its kind's records, passed as one jsonb parameter. */
  private bind(statement: string): SQL {
    const chunks: SQL[] = [];
    let at = 0;
    for (const match of statement.matchAll(ROWS_MARKER)) {
      const kind = match[1] as RecordKind;
      chunks.push(sql.raw(statement.slice(at, match.index)));
      const columns = stagedColumns(kind).map(([column, type]) => `${column} ${type}`);
      chunks.push(sql`(SELECT * FROM jsonb_to_recordset(${this.byKind.get(kind) ?? '[]'}::jsonb) AS staged(${sql.raw(columns.join(', '))}))`);
      at = match.index + match[0].length;
    }
    chunks.push(sql.raw(statement.slice(at)));
    return sql.join(chunks);
  }
}
