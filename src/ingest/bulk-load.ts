import { getTableColumns, getTableName, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { BulkSession, Database, DatabaseHandle } from '../db/client.js';
import { queryRows } from '../db/client.js';
import { type Chunk, SEED_TABLES } from '../seed/rows.js';

/**
 * The write path's bulk strategy for rows whose internal keys the writer already chose (the seed
 * generator's): COPY straight into the tables, the fastest way in, with the same deferral of the
 * derived state as ingest() and the same set-based functions at the end. Column names and value
 * encodings come from the Drizzle tables, so the writer cannot drift from the schema. ingest() uses
 * setAsideIndexesAndConstraints() too, when it loads an empty database.
 */

export interface WriteProgress {
  table: Chunk['table'];
  rows: number;
}

/** The steps after the rows are in, each reported with its duration when done. */
export type WritePhase = 'rebuild indexes' | 'claim totals and documents' | 'vacuum and analyze';

/**
 * Writes a whole data set in one transaction: a failure leaves the database as it was.
 *
 * The derived state the triggers keep (claim totals, campaign documents) is deferred for the
 * transaction and computed once at the end by set-based functions (src/db/sql/recompute_incentive_totals.sql and
 * refresh_campaigns.sql),
 * rather than statement by statement. Indexes and key constraints are set aside meanwhile and
 * rebuilt at the end (a sorted build is far faster than a million random index insertions); their
 * definitions are read back from the catalog, so the migrations stay their only source.
 * Chunks are generated while the database is still taking the previous ones.
 */
export async function writeDataset(
  database: DatabaseHandle,
  chunks: Iterable<Chunk>,
  onProgress: (progress: WriteProgress) => void = () => undefined,
  onPhase: (phase: WritePhase, ms: number) => void = () => undefined,
): Promise<void> {
  const timed = async (phase: WritePhase, work: () => Promise<unknown>) => {
    const started = Date.now();
    await work();
    onPhase(phase, Date.now() - started);
  };
  await database.bulkTransaction(async (session) => {
    // Claim totals and campaign documents are computed once at the end, not once per statement.
    await session.query(sql`SELECT set_config('campaign_service.defer_refresh', 'on', true)`);
    const tableNames = Object.values(SEED_TABLES).map((table) => getTableName(table));
    const restore = await setAsideIndexesAndConstraints(session, tableNames);

    // COPYs run one after the other on the session; the generator may run up to a few chunks ahead,
    // so that neither side waits while the other is busy with a slow table.
    let copied: Promise<void> = Promise.resolve();
    const inFlight: Promise<void>[] = [];
    for (const chunk of chunks) {
      const rows = chunk.rows as Record<string, unknown>[];
      const first = rows[0];
      if (first === undefined) continue;
      const table: PgTable = SEED_TABLES[chunk.table];
      const columns = writtenColumns(table, first);
      const data = encodeCopyText(columns, rows);
      if (inFlight.length >= CHUNKS_AHEAD) await inFlight.shift();
      const target = getTableName(table);
      const names = columns.map(([, column]) => column.name);
      copied = copied.then(() => session.copyFrom(target, names, data)).then(() => onProgress({ table: chunk.table, rows: rows.length }));
      // Awaited later (or not at all once an earlier one failed): handled now, so a failure is not "unhandled".
      copied.catch(() => undefined);
      inFlight.push(copied);
    }
    await copied;

    await timed('rebuild indexes', async () => {
      for (const statement of restore) await session.query(sql.raw(statement));
    });
    await timed('claim totals and documents', async () => {
      // The planner must see the loaded tables' real sizes before the set-based refresh.
      await session.query(sql`ANALYZE`);
      // Still deferred: the totals' own update must not set off a refresh of its own.
      await session.query(sql`SELECT recompute_incentive_totals(), recompute_claim_history()`);
      await session.query(sql`SELECT set_config('campaign_service.defer_refresh', 'off', true)`);
      await session.query(sql`SELECT refresh_campaigns(NULL), bump_campaign_set_version()`);
    });
    // The generator chose the keys; new rows continue after them.
    await session.query(sql`SELECT setval(pg_get_serial_sequence('campaigns', 'key'), coalesce(max(key), 0) + 1, false) FROM campaigns`);
    await session.query(
      sql`SELECT setval(pg_get_serial_sequence('allow_lists', 'id'), coalesce(max(id), 0) + 1, false) FROM allow_lists`,
    );
  });
  // Fresh statistics for the planner, and a visibility map so deep pages can be index-only scans.
  await timed('vacuum and analyze', () => database.db.execute(sql`VACUUM ANALYZE`));
}

/** How many encoded chunks may wait for their COPY: a few megabytes of text. */
const CHUNKS_AHEAD = 4;

/** Generated columns are computed by PostgreSQL; the others are written when the rows carry them. */
function writtenColumns(table: PgTable, sample: Record<string, unknown>): [string, PgColumn][] {
  return Object.entries(getTableColumns(table)).filter(
    ([key, column]) => !column.generated && column.generatedIdentity?.type !== 'always' && sample[key] !== undefined,
  );
}


/** Rows in COPY's text format, each value in its column's own driver encoding. */
export function encodeCopyText(columns: [string, PgColumn][], rows: Record<string, unknown>[]): string {
  const encoders = columns.map(([key, column]) => ({
    key,
    toDriver: (value: unknown): unknown => column.mapToDriverValue(value),
    // Numbers, booleans, timestamps and uuids cannot hold a tab, a newline or a backslash.
    mayNeedEscape: !ESCAPE_FREE_COLUMN_TYPES.has(column.columnType),
  }));
  const lines = new Array<string>(rows.length);
  const cells = new Array<string>(encoders.length);
  for (let at = 0; at < rows.length; at++) {
    const row = rows[at]!;
    for (let index = 0; index < encoders.length; index++) {
      const { key, toDriver, mayNeedEscape } = encoders[index]!;
      const value = row[key];
      if (value === null || value === undefined) {
        cells[index] = '\\N';
      } else {
        const driverValue = toDriver(value);
        const text = typeof driverValue === 'string' ? driverValue : String(driverValue);
        cells[index] = mayNeedEscape ? escapeCopyValue(text) : text;
      }
    }
    lines[at] = cells.join('\t');
  }
  return `${lines.join('\n')}\n`;
}

const ESCAPE_FREE_COLUMN_TYPES = new Set([
  'PgInteger',
  'PgSmallInt',
  'PgBigInt53',
  'PgBigInt64',
  'PgNumeric',
  'PgBoolean',
  'PgTimestamp',
  'PgUUID',
]);

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A character scan, not a regular expression: this runs for every value of a million-row load. */
function escapeCopyValue(value: string): string {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code === 92 || code === 9 || code === 10 || code === 13) {
      return value.replace(/[\\\t\n\r]/g, (character) => COPY_ESCAPES[character]!);
    }
  }
  return value;
}

/**
 * Drops the indexes and the key constraints (primary, unique, foreign) of `tables` and returns the
 * statements that restore them: keys first, then the other indexes, then the foreign keys that
 * depend on the keys. CHECK and NOT NULL constraints stay and check every row as it arrives.
 */
export async function setAsideIndexesAndConstraints(session: BulkSession, tables: string[]): Promise<string[]> {
  const constraints = await session.query<{ table: string; name: string; type: 'p' | 'u' | 'f'; definition: string }>(
    sql`SELECT quote_ident(t.relname) AS table, quote_ident(k.conname) AS name, k.contype AS type,
               pg_get_constraintdef(k.oid) AS definition
          FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid
         WHERE t.relnamespace = 'public'::regnamespace
           AND ((k.contype IN ('p', 'u', 'f') AND t.relname = ANY(${sql.param(tables)}::text[]))
             -- foreign keys of other tables (api_tokens) that point into these tables
             OR (k.contype = 'f' AND k.confrelid::regclass::text = ANY(${sql.param(tables)}::text[])))`,
  );
  const indexes = await session.query<{ name: string; definition: string }>(
    sql`SELECT quote_ident(c.relname) AS name, pg_get_indexdef(i.indexrelid) AS definition
          FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
         WHERE t.relname = ANY(${sql.param(tables)}::text[]) AND t.relnamespace = 'public'::regnamespace
           AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
  );
  const foreignKeys = constraints.filter((constraint) => constraint.type === 'f');
  const keys = constraints.filter((constraint) => constraint.type !== 'f');
  for (const constraint of [...foreignKeys, ...keys]) {
    await session.query(sql.raw(`ALTER TABLE ${constraint.table} DROP CONSTRAINT ${constraint.name}`));
  }
  for (const index of indexes) await session.query(sql.raw(`DROP INDEX ${index.name}`));
  const addConstraint = (constraint: (typeof constraints)[number]) =>
    `ALTER TABLE ${constraint.table} ADD CONSTRAINT ${constraint.name} ${constraint.definition}`;
  return [...keys.map(addConstraint), ...indexes.map((index) => index.definition), ...foreignKeys.map(addConstraint)];
}

export async function hasCampaigns(db: Database): Promise<boolean> {
  const [row] = await queryRows<{ present: boolean }>(db, sql`SELECT EXISTS (SELECT 1 FROM campaigns) AS present`);
  return row?.present ?? false;
}

/** Empties every table the generator fills, and the API tokens that point at its users. */
export async function truncateDataset(db: Database): Promise<void> {
  const tables = ['api_tokens', ...Object.values(SEED_TABLES).map((table) => getTableName(table))];
  await db.execute(sql.raw(`TRUNCATE ${tables.map((name) => `"${name}"`).join(', ')} RESTART IDENTITY CASCADE`));
}
