import { IMPORT_SOURCE } from './price-quote.js';
import type { RecordKind } from './records.js';
import type { StagedRows } from './staged-rows.js';
import { fieldOf } from './stored-records.js';

/**
 * The SQL that merges staged records (a row per record with its line, key and JSON, read from
 * where StagedRows says: a temporary table, or a parameter) into the tables, by natural key. Everything is set-based:
 * one statement per kind and step, whatever the number of records. Rows are written in line order,
 * so generated ids (claims, claim signatures) follow the file, which is how readers break ties.
 *
 * Upserts only touch rows that differ (`IS DISTINCT FROM`), so re-importing a file changes nothing
 * and the counts say what happened. Kinds with child rows (members, addresses, incentives, steps)
 * note every changed parent (StagedRows.touch); the others count what their statement returns.
 */


/** The staged record as `r` (jsonb), for the kinds staged as documents. */
export const asRecord = (kind: RecordKind) => (kind === 'claim' ? '' : ', LATERAL (SELECT s.record AS r) AS x');

interface Column {
  name: string;
  /** Read from the staged record `r` (jsonb). */
  value: string;
  /** Written on insert only (a user's id). */
  insertOnly?: boolean;
  /** What an update sets, over the stored row `t` and the record's row `excluded`; `excluded.<name>` by default. */
  update?: string;
}

interface UpsertSpec {
  kind: RecordKind;
  table: string;
  conflict: string[];
  columns: Column[];
  /** The natural key of a written row as text, noted as touched (kinds with children). */
  touchedKey?: string;
  /** A join the columns read from (`c`, the campaign a claim names): set-based, so it needs no index. */
  join?: string;
}

const JOIN_NAMED_CAMPAIGN = `JOIN campaigns AS c ON c.public_id = (s.record->>'campaign') COLLATE "C"`;

const text = (field: string) => `r->>'${field}'`;
const cast = (field: string, type: string) => `(r->>'${field}')::${type}`;
const col = (name: string, value: string, insertOnly = false, update?: string): Column => ({ name, value, insertOnly, update });
/** JSON null and absence alike become SQL NULL. */
const jsonOrNull = (field: string) => `nullif(r->'${field}', 'null'::jsonb)`;
/** Columns read as they are from the record fields of their names. */
const texts = (...names: string[]) => names.map((name) => col(name, text(fieldOf(name))));
/** Columns read from the record fields of their names, cast to `type`. */
const casts = (type: string, ...names: string[]) => names.map((name) => col(name, cast(fieldOf(name), type)));
/** Boolean columns read from the record fields of their names; a field left out is `otherwise`. */
const flags = (otherwise: boolean, ...names: string[]) =>
  names.map((name) => col(name, `coalesce(${cast(fieldOf(name), 'boolean')}, ${otherwise})`));

const UPSERTS: UpsertSpec[] = [
  {
    kind: 'token',
    table: 'tokens',
    conflict: ['chain_id', 'address'],
    columns: [
      ...casts('integer', 'chain_id'),
      ...texts('address'),
      ...casts('uuid', 'id'),
      ...texts('name', 'symbol'),
      // Decimals read from the token's contract stay: an import never changes them.
      col('decimals', cast('decimals', 'smallint'), false, 'CASE WHEN t.decimals_from_chain THEN t.decimals ELSE excluded.decimals END'),
      ...texts('image_uri'),
      ...flags(false, 'is_whitelisted', 'is_blocked'),
      // A record without a price leaves a price source's current price alone (it clears an imported one).
      col('price_usd', cast('priceUsd', 'numeric'), false, `coalesce(excluded.price_usd, CASE WHEN t.price_source <> 'import' THEN t.price_usd END)`),
      col('price_source', `'import'`, false, `CASE WHEN excluded.price_usd IS NULL AND t.price_usd IS NOT NULL THEN t.price_source ELSE 'import' END`),
      ...casts('numeric', 'market_cap_usd', 'price_change_24h_pct', 'volume_24h_usd'),
      ...casts('integer', 'holders'),
    ],
  },
  {
    kind: 'project',
    table: 'projects',
    conflict: ['id'],
    columns: [...casts('uuid', 'id'), ...texts('name', 'image_uri', 'url', 'verification_level')],
  },
  {
    kind: 'actionTemplate',
    table: 'action_templates',
    conflict: ['id'],
    columns: [
      ...casts('uuid', 'id', 'project_id'),
      ...texts('action_type', 'description', 'category', 'title'),
      col('campaign_config', `r->'campaignConfig'`),
      col('name_config', `r->'nameConfig'`),
      ...flags(true, 'is_active'),
      ...texts('url_template'),
      col('allowlist', `ARRAY(SELECT lower(jsonb_array_elements_text(coalesce(r->'allowlist', '[]'::jsonb))))`),
      col('distribution_channels', `ARRAY(SELECT jsonb_array_elements_text(coalesce(r->'distributionChannels', '[]'::jsonb)))`),
      ...texts('verification_level'),
      col('builder_metadata', jsonOrNull('builderMetadata')),
      col('status', `coalesce(${text('status')}, 'approved')`),
    ],
  },
  {
    kind: 'contract',
    table: 'contracts',
    conflict: ['chain_id', 'address'],
    columns: [...casts('integer', 'chain_id'), ...texts('address', 'name')],
  },
  {
    kind: 'user',
    table: 'users',
    conflict: ['address'],
    columns: [
      col('id', `coalesce(${cast('id', 'uuid')}, gen_random_uuid())`, true),
      ...texts('address'),
      col('score', `coalesce(${cast('score', 'integer')}, 0)`),
    ],
  },
  {
    kind: 'accessList',
    table: 'access_lists',
    conflict: ['id'],
    touchedKey: 'id::text',
    columns: [
      ...casts('uuid', 'id'),
      col('owner_user_id', `(SELECT u.id FROM users AS u WHERE u.address = r->>'owner')`),
      ...texts('name', 'icon'),
      ...casts('timestamptz', 'created_at'),
    ],
  },
  {
    kind: 'knownSignature',
    table: 'known_signatures',
    conflict: ['id'],
    columns: [
      col('id', `lower(${text('id')})`),
      ...texts('text_signature'),
      col('abi_item', jsonOrNull('abiItem')),
      ...texts('signature_type'),
    ],
  },
  {
    kind: 'budgetAccount',
    table: 'budget_accounts',
    conflict: ['chain_id', 'address'],
    touchedKey: `chain_id || ':' || address`,
    columns: [
      ...casts('integer', 'chain_id'),
      ...texts('address', 'registry_type', 'base_implementation', 'deployed_instance', 'tx_hash'),
      ...casts('bigint', 'block_timestamp', 'block_number'),
      ...texts('name', 'owner', 'owner_email'),
      ...flags(false, 'hidden'),
      ...texts('label'),
      ...flags(false, 'deprecated'),
    ],
  },
  {
    kind: 'allowList',
    table: 'allow_lists',
    conflict: ['chain_id', 'contract_address'],
    touchedKey: `chain_id || ':' || contract_address`,
    columns: [
      ...casts('integer', 'chain_id'),
      ...texts('contract_address', 'owner', 'type'),
      ...casts('uuid', 'access_list_id'),
    ],
  },
  {
    kind: 'campaign',
    table: 'campaigns',
    conflict: ['chain_id', 'core_address', 'identifier'],
    touchedKey: 'public_id',
    columns: [
      ...casts('integer', 'chain_id'),
      ...texts('core_address'),
      ...casts('numeric', 'identifier', 'campaign_index'),
      ...texts('owner', 'creator', 'budget', 'validator', 'action'),
      ...casts('numeric', 'protocol_fee', 'max_participants'),
      ...casts('bigint', 'block_timestamp', 'block_number'),
      ...texts('tx_hash'),
      ...casts('timestamptz', 'start_time', 'end_time'),
      col('distribution_channels', `ARRAY(SELECT jsonb_array_elements_text(coalesce(r->'distributionChannels', '[]')))`),
      ...texts('autocampaign_id', 'template_id'),
      ...casts('uuid', 'action_template_id'),
      col(
        'allow_list_id',
        `(SELECT a.id FROM allow_lists AS a
           WHERE a.chain_id = (r->'allowList'->>'chainId')::integer AND a.contract_address = r->'allowList'->>'contractAddress')`,
      ),
      ...texts('campaign_name', 'nft_image_uri', 'nft_name', 'nft_metadata_id', 'project_image_uri', 'token_image_uri', 'action_token_address'),
      col('action_claimant', jsonOrNull('actionClaimant')),
    ],
  },
  {
    kind: 'claimSignature',
    table: 'claim_signatures',
    conflict: ['campaign_key', 'signature'],
    join: JOIN_NAMED_CAMPAIGN,
    columns: [
      col('campaign_key', 'c.key'),
      ...texts('claimant'),
      ...casts('smallint', 'incentive_id'),
      ...texts('signature', 'referrer'),
      ...flags(false, 'used'),
    ],
  },
  {
    kind: 'claim',
    table: 'claims',
    conflict: ['chain_id', 'tx_hash', 'log_index'],
    // A claim without values is valued from the prices at its time (claim_value()), or waits for them.
    join: `JOIN campaigns AS c ON c.public_id = s.campaign COLLATE "C"
      LEFT JOIN incentives AS i ON i.campaign_key = c.key AND i.position = s.incentive_position
      LEFT JOIN LATERAL (SELECT * FROM claim_value(s.chain_id, i.asset_address, s.amount, s.claimed_at)
                          WHERE s.usd_value IS NULL OR s.eth_value_wei IS NULL) AS v ON true`,
    columns: [
      col('campaign_key', 'c.key'),
      ...['chain_id', 'incentive_position', 'claimant', 'amount', 'tx_hash', 'log_index', 'claimed_at', 'block_number'].map((name) => col(name, `s.${name}`)),
      col('usd_value', 'coalesce(s.usd_value, v.usd_value, 0)'),
      col('eth_value_wei', 'coalesce(s.eth_value_wei, v.eth_value_wei, 0)'),
      col('value_pending', '(s.usd_value IS NULL AND v.usd_value IS NULL) OR (s.eth_value_wei IS NULL AND v.eth_value_wei IS NULL)'),
      // A RAFFLE's entries pay nothing: a payout of one is its draw (the claims table's `draw`).
      col('draw', `coalesce(i.type = 'ERC20Incentive' AND i.params->>'strategy' = '1' AND s.amount > 0, false)`),
    ],
  },
];

/**
 * Token records the indexer read from the tokens' contracts (ingest option `tokensFromChain`): they
 * set the decimals and mark them read from the chain, and fill in a name or symbol the row does not
 * have; every other field of a stored row (an import's id, name, image, whitelist, price) stays.
 */
const CHAIN_TOKEN_UPDATES: Record<string, string> = {
  decimals: 'excluded.decimals',
  decimals_from_chain: 'true',
  name: `CASE WHEN t.name = '' THEN excluded.name ELSE t.name END`,
  symbol: `CASE WHEN t.symbol = '' THEN excluded.symbol ELSE t.symbol END`,
};

function chainTokenSpec(spec: UpsertSpec): UpsertSpec {
  return {
    ...spec,
    columns: [...spec.columns, col('decimals_from_chain', 'true')].map((column) => {
      const update = CHAIN_TOKEN_UPDATES[column.name];
      return update === undefined ? { ...column, insertOnly: true } : { ...column, insertOnly: false, update };
    }),
  };
}

/**
 * The tables an import into an empty database loads with their indexes and constraints set aside
 * (ingest/write.ts): the large ones, which the merge reads only through joins (hash joins need no
 * index). Into those, plain INSERTs: an empty table has nothing to conflict with, and the staging check already
 * refused duplicate keys.
 */
export const BULK_TABLES = [
  'campaigns',
  'incentives',
  'action_steps',
  'claim_signatures',
  'claims',
  'allow_list_addresses',
  'access_list_members',
];

/** The statement that upserts every staged (not deleted) record of a kind, and what it returns. */
export function upsertStatement(kind: RecordKind, rows: StagedRows, bulk = false, tokensFromChain = false): { sql: string; countsRows: boolean } {
  const stored = UPSERTS.find((candidate) => candidate.kind === kind)!;
  const spec = kind === 'token' && tokensFromChain ? chainTokenSpec(stored) : stored;
  const names = spec.columns.map((column) => column.name);
  const updatedColumns = spec.columns.filter((column) => !column.insertOnly && !spec.conflict.includes(column.name));
  const updated = updatedColumns.map((column) => column.name);
  const values = updatedColumns.map((column) => column.update ?? `excluded.${column.name}`);
  const source = `SELECT ${spec.columns.map((column) => `${column.value} AS ${column.name}`).join(',\n         ')}
    FROM ${rows.of(kind)} AS s ${spec.join ?? ''}${asRecord(kind)}
   WHERE NOT s.deleted
   ORDER BY s.line`;
  const onConflict =
    bulk && BULK_TABLES.includes(spec.table)
      ? ''
      : `ON CONFLICT (${spec.conflict.join(', ')}) DO UPDATE
     SET ${updated.map((name, index) => `${name} = ${values[index]}`).join(', ')}
   WHERE (${updated.map((name) => `t.${name}`).join(', ')}) IS DISTINCT FROM (${values.join(', ')})`;
  const insert = `INSERT INTO ${spec.table} AS t (${names.join(', ')})
  ${source}
  ${onConflict}`;
  if (spec.touchedKey) {
    return {
      sql: `WITH written AS (${insert}
  RETURNING ${spec.touchedKey} AS key, (xmax = 0) AS inserted)
${rows.touch(`SELECT '${kind}' AS kind, key, CASE WHEN inserted THEN 'inserted' ELSE 'updated' END AS change FROM written`)}`,
      countsRows: false,
    };
  }
  return {
    sql: `WITH written AS (${insert}
  RETURNING (xmax = 0) AS inserted)
SELECT count(*) FILTER (WHERE inserted)::integer AS inserted, count(*) FILTER (WHERE NOT inserted)::integer AS updated FROM written`,
    countsRows: true,
  };
}

/** How a deletion finds its row: the natural key, compared with the staged record `s.record`. */
const DELETE_MATCH: Record<RecordKind, { table: string; match: string }> = {
  token: { table: 'tokens', match: `t.chain_id = (s.record->>'chainId')::integer AND t.address = s.record->>'address'` },
  // An imported price only: a source's quotes are the price job's.
  price: {
    table: 'token_prices',
    match: `t.chain_id = (s.record->>'chainId')::integer AND t.address = s.record->>'address'
            AND t.at = (s.record->>'at')::timestamptz AND t.source = '${IMPORT_SOURCE}'`,
  },
  project: { table: 'projects', match: `t.id = (s.record->>'id')::uuid` },
  actionTemplate: { table: 'action_templates', match: `t.id = (s.record->>'id')::uuid` },
  contract: { table: 'contracts', match: `t.chain_id = (s.record->>'chainId')::integer AND t.address = s.record->>'address'` },
  user: { table: 'users', match: `t.address = s.record->>'address'` },
  accessList: { table: 'access_lists', match: `t.id = (s.record->>'id')::uuid` },
  knownSignature: { table: 'known_signatures', match: `t.id = lower(s.record->>'id')` },
  budgetAccount: {
    table: 'budget_accounts',
    match: `t.chain_id = (s.record->>'chainId')::integer AND t.address = s.record->>'address'`,
  },
  allowList: {
    table: 'allow_lists',
    match: `t.chain_id = (s.record->>'chainId')::integer AND t.contract_address = s.record->>'contractAddress'`,
  },
  campaign: { table: 'campaigns', match: `t.public_id = s.key COLLATE "C"` },
  claimSignature: {
    table: 'claim_signatures',
    match: `t.signature = s.record->>'signature'
            AND t.campaign_key = (SELECT c.key FROM campaigns AS c WHERE c.public_id = (s.record->>'campaign') COLLATE "C")`,
  },
  claim: { table: 'claims', match: `t.chain_id = s.chain_id AND t.tx_hash = s.tx_hash AND t.log_index = s.log_index` },
};

export function deleteStatement(kind: RecordKind, rows: StagedRows): string {
  const { table, match } = DELETE_MATCH[kind];
  return `WITH gone AS (DELETE FROM ${table} AS t USING ${rows.of(kind)} AS s WHERE s.deleted AND ${match} RETURNING 1)
SELECT count(*)::integer AS deleted FROM gone`;
}
