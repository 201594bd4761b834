import { sql } from 'drizzle-orm';
import type { BulkSession, DatabaseHandle } from '../db/client.js';
import { IMPORT_SOURCE } from './price-quote.js';
import type { RECORD_KINDS, UpsertRecord } from './records.js';
import { campaignRecordOf, campaignRecordsQuery, fieldsOf, iso, trimIso } from './stored-records.js';

/**
 * Every record an empty database needs to answer every request as this one does, in the import's
 * order (docs/writing-data.md): kinds in reference order, and within a kind a fixed order (the
 * natural key, or the order rows were written where readers break ties by it: campaigns, claim
 * signatures, claims). Exporting the same data twice gives the same bytes. API tokens are never
 * exported; derived state (claim totals, flags, documents) is recomputed by the import.
 * Large kinds are read in pages by key, so memory holds one page whatever the size. A query selects
 * a record's fields as columns of the same names in snake_case, in the record's order (fieldsOf).
 */

const PAGE = 5000;


type Row = Record<string, unknown>;
/** A query on one connection: the caller runs the whole export in one repeatable-read transaction, so it is one snapshot. */
type Query = BulkSession['query'];

/** Lines are gathered into chunks of about this size before they are handed to `write`. */
const CHUNK_CHARS = 1 << 16;

/**
 * The whole database as NDJSON, read in one repeatable-read snapshot (so a concurrent write is in
 * the file entirely or not at all), handed out in chunks; `write` may wait (backpressure).
 * Returns the number of records.
 */
export async function exportNdjson(database: DatabaseHandle, write: (chunk: string) => Promise<void>): Promise<number> {
  return database.bulkTransaction(async (session) => {
    await session.query(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    let count = 0;
    let chunk = '';
    for await (const record of exportRecords((query) => session.query(query))) {
      chunk += `${JSON.stringify(record)}\n`;
      count++;
      if (chunk.length >= CHUNK_CHARS) {
        await write(chunk);
        chunk = '';
      }
    }
    if (chunk !== '') await write(chunk);
    return count;
  });
}

type Kind = (typeof RECORD_KINDS)[number]['kind'];
type RecordOf<K extends Kind> = Extract<UpsertRecord, { kind: K }>;

export async function* exportRecords(query: Query): AsyncGenerator<UpsertRecord> {
  for (const row of await query<Row>(
    sql`SELECT chain_id, address, id::text, name, symbol, decimals, image_uri, is_whitelisted, is_blocked,
               CASE WHEN price_source = 'import' THEN price_usd::text END AS price_usd, market_cap_usd::text,
               price_change_24h_pct::text, volume_24h_usd::text, holders FROM tokens ORDER BY chain_id, address`,
  )) {
    yield { kind: 'token', ...fieldsOf(row) } as RecordOf<'token'>;
  }
  yield* importedPrices(query);
  for (const row of await query<Row>(sql`SELECT id::text, name, image_uri, url, verification_level FROM projects ORDER BY id`)) {
    yield { kind: 'project', ...fieldsOf(row) } as RecordOf<'project'>;
  }
  for (const row of await query<Row>(
    sql`SELECT id::text, project_id::text, action_type, description, category, title, campaign_config, name_config, is_active,
               url_template, allowlist, distribution_channels, verification_level, builder_metadata, status
          FROM action_templates ORDER BY id`,
  )) {
    yield { kind: 'actionTemplate', ...fieldsOf(row) } as RecordOf<'actionTemplate'>;
  }
  for (const row of await query<Row>(sql`SELECT chain_id, address, name FROM contracts ORDER BY chain_id, address`)) {
    yield { kind: 'contract', ...fieldsOf(row) } as RecordOf<'contract'>;
  }
  yield* users(query);
  yield* accessLists(query);
  for (const row of await query<Row>(sql`SELECT id, text_signature, abi_item, signature_type FROM known_signatures ORDER BY id`)) {
    yield { kind: 'knownSignature', ...fieldsOf(row) } as RecordOf<'knownSignature'>;
  }
  yield* budgetAccounts(query);
  yield* allowLists(query);
  yield* campaigns(query);
  yield* claimSignatures(query);
  yield* claims(query);
}

/**
 * The imported part of the price history (a source's quotes are the price job's to fetch again), by
 * token and time. Not the newest imported price of a token when it is the token's imported current
 * price: the token record carries that one, and importing it records it again, at the import's time.
 */
async function* importedPrices(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<[number, string, string]>(
    (after) =>
      query<Row>(
        sql`SELECT p.chain_id, p.address, ${iso('p.at')} AS at, p.price_usd::text AS price_usd
              FROM token_prices AS p
             WHERE p.source = ${IMPORT_SOURCE}
               AND ${after === null ? sql`true` : sql`(p.chain_id, p.address, p.at) > (${after[0]}, ${after[1]}, ${after[2]}::timestamptz)`}
               AND NOT EXISTS (
                 SELECT 1 FROM tokens AS t
                  WHERE t.chain_id = p.chain_id AND t.address = p.address AND t.price_source = ${IMPORT_SOURCE} AND t.price_usd = p.price_usd
                    AND p.at = (SELECT max(n.at) FROM token_prices AS n
                                 WHERE n.chain_id = p.chain_id AND n.address = p.address AND n.source = ${IMPORT_SOURCE}))
             ORDER BY p.chain_id, p.address, p.at LIMIT ${PAGE}`,
      ),
    (row) => [row.chain_id as number, row.address as string, row.at as string],
  )) {
    yield { kind: 'price', ...fieldsOf(row), at: trimIso(row.at as string) } as RecordOf<'price'>;
  }
}

async function* budgetAccounts(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<[number, string]>(
    (after) =>
      query<Row>(
        sql`SELECT a.chain_id, a.address, a.registry_type, a.base_implementation, a.deployed_instance, a.tx_hash, a.block_timestamp,
                   a.block_number, a.name, a.owner, a.owner_email, a.hidden, a.label, a.deprecated,
                   (SELECT coalesce(json_agg(json_build_object('address', m.member_address, 'roles', m.roles, 'email', m.email,
                                                                    'status', m.status) ORDER BY m.member_address), '[]')
                           FROM budget_account_members AS m WHERE m.chain_id = a.chain_id AND m.account_address = a.address) AS members
              FROM budget_accounts AS a
             WHERE ${after === null ? sql`true` : sql`(a.chain_id, a.address) > (${after[0]}, ${after[1]})`}
             ORDER BY a.chain_id, a.address LIMIT ${PAGE}`,
      ),
    (row) => [row.chain_id as number, row.address as string],
  )) {
    yield {
      kind: 'budgetAccount',
      ...fieldsOf(row),
      blockTimestamp: Number(row.block_timestamp),
      blockNumber: Number(row.block_number),
    } as RecordOf<'budgetAccount'>;
  }
}

async function* users(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<string>(
    (after) =>
      query<Row>(
        sql`SELECT address, id::text, score FROM users WHERE ${after === null ? sql`true` : sql`address > ${after}`}
             ORDER BY address LIMIT ${PAGE}`,
      ),
    (row) => row.address as string,
  )) yield { kind: 'user', ...fieldsOf(row) } as RecordOf<'user'>;
}

async function* accessLists(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<string>(
    (after) =>
      query<Row>(
        sql`SELECT l.id::text, u.address AS owner, l.name, l.icon, ${iso('l.created_at')} AS created_at,
                   ARRAY(SELECT m.address FROM access_list_members AS m WHERE m.access_list_id = l.id ORDER BY m.address) AS members
              FROM access_lists AS l JOIN users AS u ON u.id = l.owner_user_id
             WHERE ${after === null ? sql`true` : sql`l.id > ${after}::uuid`}
             ORDER BY l.id LIMIT ${PAGE}`,
      ),
    (row) => row.id as string,
  )) {
    yield { kind: 'accessList', ...fieldsOf(row), createdAt: trimIso(row.created_at as string) } as RecordOf<'accessList'>;
  }
}

async function* allowLists(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<number>(
    (after) =>
      query<Row>(
        sql`SELECT a.id, a.chain_id, a.contract_address, a.owner, a.type, a.access_list_id::text,
                   ARRAY(SELECT x.address FROM allow_list_addresses AS x WHERE x.allow_list_id = a.id ORDER BY x.address) AS addresses
              FROM allow_lists AS a WHERE a.id > ${after ?? 0} ORDER BY a.id LIMIT ${PAGE}`,
      ),
    (row) => Number(row.id),
  )) {
    yield { kind: 'allowList', ...fieldsOf(row, 'id') } as RecordOf<'allowList'>;
  }
}

/** Campaign records in write order. */
async function* campaigns(query: Query): AsyncGenerator<RecordOf<'campaign'>> {
  for await (const row of pages<number>(
    (after) => query<Row>(campaignRecordsQuery(sql`c.key > ${after ?? 0}`, PAGE)),
    (row) => Number(row.key),
  )) {
    yield campaignRecordOf(row);
  }
}

async function* claimSignatures(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<number>(
    (after) =>
      query<Row>(
        sql`SELECT g.id::text, c.public_id AS campaign, g.signature, g.claimant, g.incentive_id, g.referrer, g.used
              FROM claim_signatures AS g JOIN campaigns AS c ON c.key = g.campaign_key
             WHERE g.id > ${after ?? 0} ORDER BY g.id LIMIT ${PAGE}`,
      ),
    (row) => Number(row.id),
  )) {
    yield { kind: 'claimSignature', ...fieldsOf(row, 'id') } as RecordOf<'claimSignature'>;
  }
}

async function* claims(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<number>(
    (after) =>
      query<Row>(
        sql`SELECT k.id::text, k.chain_id, k.tx_hash, k.log_index, c.public_id AS campaign, k.incentive_position, k.claimant,
                   k.amount::text, k.usd_value::text, k.eth_value_wei::text, k.value_pending, ${iso('k.claimed_at')} AS claimed_at, k.block_number::float8 AS block_number
              FROM claims AS k JOIN campaigns AS c ON c.key = k.campaign_key
             WHERE k.id > ${after ?? 0} ORDER BY k.id LIMIT ${PAGE * 4}`,
      ),
    (row) => Number(row.id),
    PAGE * 4,
  )) {
    yield {
      kind: 'claim',
      chainId: row.chain_id,
      txHash: row.tx_hash,
      logIndex: row.log_index,
      campaign: row.campaign,
      incentivePosition: row.incentive_position,
      claimant: row.claimant,
      amount: row.amount,
      // A claim waiting for a price goes out without values, so that importing it values it too.
      ...(row.value_pending ? {} : { usdValue: row.usd_value, ethValueWei: row.eth_value_wei }),
      claimedAt: trimIso(row.claimed_at as string),
      ...(row.block_number === null ? {} : { blockNumber: row.block_number }),
    } as RecordOf<'claim'>;
  }
}

/**
 * The rows of a query read a page at a time by key: `read(after)` reads the page after a key (null:
 * the first page), `keyOf` gives a row's key; a page shorter than `size` is the last.
 */
async function* pages<K>(read: (after: K | null) => Promise<Row[]>, keyOf: (row: Row) => K, size = PAGE): AsyncGenerator<Row> {
  let after: K | null = null;
  for (;;) {
    const rows = await read(after);
    yield* rows;
    if (rows.length < size) return;
    after = keyOf(rows.at(-1)!);
  }
}
