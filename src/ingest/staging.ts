import { sql } from 'drizzle-orm';
import type { BulkSession } from '../db/client.js';
import { type IngestRecord, RECORD_KINDS, type RecordKind } from './records.js';

/**
 * Validated records wait in temporary tables (one per kind, dropped at commit) until the whole
 * input is in: then references and duplicate keys are checked with SQL and the records merged
 * set-based, whatever order the input had them in. COPY fills them; Node holds one chunk at a time.
 */

/** The temporary table a kind's records are staged in. */
export const stageTable = (kind: RecordKind) => `ingest_${kind.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`;

/**
 * Claims, most of any input, are staged in typed columns rather than as jsonb: COPY parses a number
 * or a timestamp far faster than a JSON document, and the merge reads columns instead of extracting
 * fields. [column, SQL type, record field]; a deletion leaves all but the key NULL.
 */
export const CLAIM_STAGING_COLUMNS = [
  ['chain_id', 'integer', 'chainId'],
  ['tx_hash', 'text', 'txHash'],
  ['log_index', 'integer', 'logIndex'],
  ['campaign', 'text', 'campaign'],
  ['incentive_position', 'smallint', 'incentivePosition'],
  ['claimant', 'text', 'claimant'],
  ['amount', 'numeric', 'amount'],
  ['usd_value', 'numeric', 'usdValue'],
  ['eth_value_wei', 'numeric', 'ethValueWei'],
  ['claimed_at', 'timestamptz', 'claimedAt'],
  ['block_number', 'bigint', 'blockNumber'],
] as const;

/** A staged record's columns and their types: line, deleted, key, then the record (jsonb) or a claim's typed columns. */
export function stagedColumns(kind: RecordKind): [string, string][] {
  const body: [string, string][] = kind === 'claim' ? CLAIM_STAGING_COLUMNS.map(([column, type]) => [column, type]) : [['record', 'jsonb']];
  return [['line', 'bigint'], ['deleted', 'boolean'], ['key', 'text'], ...body];
}

const ALWAYS_GIVEN = new Set(['line', 'deleted', 'key', 'record']);

/** Bytes of COPY text per kind held before it is sent. */
const CHUNK_BYTES = 1 << 20;

export async function createStagingTables(session: BulkSession): Promise<void> {
  for (const { kind } of RECORD_KINDS) {
    // A claim's typed columns are NULL in a deletion; the others always hold a value.
    const columns = stagedColumns(kind).map(([column, type]) => `${column} ${type}${ALWAYS_GIVEN.has(column) ? ' NOT NULL' : ''}`);
    await session.query(sql.raw(`CREATE TEMPORARY TABLE ${stageTable(kind)} (${columns.join(', ')}) ON COMMIT DROP`));
  }
  await session.query(sql.raw(`CREATE TEMPORARY TABLE ingest_touched (kind text NOT NULL, key text NOT NULL, change text NOT NULL) ON COMMIT DROP`));
}

export interface StagedCounts {
  upserts: number;
  deletions: number;
}

/** Buffers records per kind and COPYs them in chunks; at most one COPY runs while the next chunk fills. */
export class Stager {
  private readonly buffers = new Map<RecordKind, string[]>();
  private readonly sizes = new Map<RecordKind, number>();
  private sending: Promise<void> = Promise.resolve();
  readonly counts = new Map<RecordKind, StagedCounts>(RECORD_KINDS.map(({ kind }) => [kind, { upserts: 0, deletions: 0 }]));

  constructor(private readonly session: BulkSession) {}

  async add(line: number, key: string, record: IngestRecord): Promise<void> {
    const deleted = record.deleted === true;
    const counts = this.counts.get(record.kind)!;
    if (deleted) counts.deletions++;
    else counts.upserts++;
    const row = `${line}\t${deleted ? 't' : 'f'}\t${escapeCopy(key)}\t${record.kind === 'claim' ? claimColumns(record) : documentColumn(record)}`;
    const buffer = this.buffers.get(record.kind) ?? [];
    buffer.push(row);
    this.buffers.set(record.kind, buffer);
    const size = (this.sizes.get(record.kind) ?? 0) + row.length;
    this.sizes.set(record.kind, size);
    if (size >= CHUNK_BYTES) await this.send(record.kind);
  }

  async flush(): Promise<void> {
    for (const kind of this.buffers.keys()) await this.send(kind);
    await this.sending;
  }

  private columnsOf(kind: RecordKind): string[] {
    return stagedColumns(kind).map(([column]) => column);
  }

  private async send(kind: RecordKind): Promise<void> {
    const rows = this.buffers.get(kind);
    if (!rows || rows.length === 0) return;
    this.buffers.set(kind, []);
    this.sizes.set(kind, 0);
    await this.sending;
    const data = `${rows.join('\n')}\n`;
    this.sending = this.session.copyFrom(stageTable(kind), this.columnsOf(kind), data);
    // Awaited by the next send or flush; handled now so that a failure is never "unhandled".
    this.sending.catch(() => undefined);
  }
}

/** JSON never holds a raw tab or newline; a backslash is COPY's escape and is doubled. */
function documentColumn(record: IngestRecord): string {
  return JSON.stringify(record).replace(/\\/g, '\\\\');
}

/** A claim's fields in CLAIM_STAGING_COLUMNS order; validated values (digits, hex, ISO times) need no escaping. */
function claimColumns(record: IngestRecord): string {
  const fields = record as unknown as Record<string, string | number | undefined>;
  return CLAIM_STAGING_COLUMNS.map(([, , field]) => {
    const value = fields[field];
    return value === undefined ? '\\N' : String(value);
  }).join('\t');
}

function escapeCopy(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (character) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[character]!);
}
