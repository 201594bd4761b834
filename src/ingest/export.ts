import { type SQL, sql } from 'drizzle-orm';
import type { BulkSession, DatabaseHandle } from '../db/client.js';
import type { RECORD_KINDS, UpsertRecord } from './records.js';

/**
 * Every record an empty database needs to answer every request as this one does, in the import's
 * order (docs/writing-data.md): kinds in reference order, and within a kind a fixed order (the
 * natural key, or the order rows were written where readers break ties by it: campaigns, claim
 * signatures, claims). Exporting the same data twice gives the same bytes. API tokens are never
 * exported; derived state (claim totals, flags, documents) is recomputed by the import.
 * Large kinds are read in pages by key, so memory holds one page whatever the size.
 */

const PAGE = 5000;

/** ISO 8601 in UTC, to the microsecond PostgreSQL keeps, shortened to milliseconds when that is all there is. */
const iso = (column: string) => sql.raw(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);
const trimIso = (value: string | null) => (value === null ? null : value.replace(/(\.[0-9]{3})000Z$/, '$1Z'));

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
    yield {
      kind: 'token',
      chainId: row.chain_id,
      address: row.address,
      id: row.id,
      name: row.name,
      symbol: row.symbol,
      decimals: row.decimals,
      imageUri: row.image_uri,
      isWhitelisted: row.is_whitelisted,
      isBlocked: row.is_blocked,
      priceUsd: row.price_usd,
      marketCapUsd: row.market_cap_usd,
      priceChange24hPct: row.price_change_24h_pct,
      volume24hUsd: row.volume_24h_usd,
      holders: row.holders,
    } as RecordOf<'token'>;
  }
  for (const row of await query<Row>(sql`SELECT id::text, name, image_uri, url, verification_level FROM projects ORDER BY id`)) {
    yield {
      kind: 'project',
      id: row.id,
      name: row.name,
      imageUri: row.image_uri,
      url: row.url,
      verificationLevel: row.verification_level,
    } as RecordOf<'project'>;
  }
  for (const row of await query<Row>(
    sql`SELECT id::text, project_id::text, action_type, description, category, title, campaign_config, name_config, is_active,
               url_template, allowlist, distribution_channels, verification_level, builder_metadata, status
          FROM action_templates ORDER BY id`,
  )) {
    yield {
      kind: 'actionTemplate',
      id: row.id,
      projectId: row.project_id,
      actionType: row.action_type,
      description: row.description,
      category: row.category,
      title: row.title,
      campaignConfig: row.campaign_config,
      nameConfig: row.name_config,
      isActive: row.is_active,
      urlTemplate: row.url_template,
      allowlist: row.allowlist,
      distributionChannels: row.distribution_channels,
      verificationLevel: row.verification_level,
      builderMetadata: row.builder_metadata,
      status: row.status,
    } as RecordOf<'actionTemplate'>;
  }
  for (const row of await query<Row>(sql`SELECT chain_id, address, name FROM contracts ORDER BY chain_id, address`)) {
    yield { kind: 'contract', chainId: row.chain_id, address: row.address, name: row.name } as RecordOf<'contract'>;
  }
  yield* users(query);
  yield* accessLists(query);
  for (const row of await query<Row>(sql`SELECT id, text_signature, abi_item, signature_type FROM known_signatures ORDER BY id`)) {
    yield {
      kind: 'knownSignature',
      id: row.id,
      textSignature: row.text_signature,
      abiItem: row.abi_item,
      signatureType: row.signature_type,
    } as RecordOf<'knownSignature'>;
  }
  yield* budgetAccounts(query);
  yield* allowLists(query);
  yield* campaigns(query);
  yield* claimSignatures(query);
  yield* claims(query);
}

async function* budgetAccounts(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<[number, string]>(
    (after) =>
      query<Row>(
        sql`SELECT a.*, (SELECT coalesce(json_agg(json_build_object('address', m.member_address, 'roles', m.roles, 'email', m.email,
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
      chainId: row.chain_id,
      address: row.address,
      registryType: row.registry_type,
      baseImplementation: row.base_implementation,
      deployedInstance: row.deployed_instance,
      txHash: row.tx_hash,
      blockTimestamp: Number(row.block_timestamp),
      blockNumber: Number(row.block_number),
      name: row.name,
      owner: row.owner,
      ownerEmail: row.owner_email,
      hidden: row.hidden,
      label: row.label,
      deprecated: row.deprecated,
      members: row.members,
    } as RecordOf<'budgetAccount'>;
  }
}

async function* users(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<string>(
    (after) =>
      query<Row>(
        sql`SELECT id::text, address, score FROM users WHERE ${after === null ? sql`true` : sql`address > ${after}`}
             ORDER BY address LIMIT ${PAGE}`,
      ),
    (row) => row.address as string,
  )) yield { kind: 'user', address: row.address, id: row.id, score: row.score } as RecordOf<'user'>;
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
    yield {
      kind: 'accessList',
      id: row.id,
      owner: row.owner,
      name: row.name,
      icon: row.icon,
      createdAt: trimIso(row.created_at as string),
      members: row.members,
    } as RecordOf<'accessList'>;
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
    yield {
      kind: 'allowList',
      chainId: row.chain_id,
      contractAddress: row.contract_address,
      owner: row.owner,
      type: row.type,
      accessListId: row.access_list_id,
      addresses: row.addresses,
    } as RecordOf<'allowList'>;
  }
}

/** Campaign records in write order; `filter` (on `c`, the campaigns table) narrows them (the indexer reads the ones it rewrites). */
export async function* campaigns(query: Query, filter: SQL = sql`true`): AsyncGenerator<RecordOf<'campaign'>> {
  for await (const row of pages<number>(
    (after) =>
      query<Row>(
        sql`SELECT c.key, c.chain_id, c.core_address, c.identifier::text, c.campaign_index::text, c.owner, c.creator, c.budget,
                   c.validator, c.action, c.protocol_fee::text, c.max_participants::text, c.block_timestamp::text,
                   c.block_number::text, c.tx_hash, ${iso('c.start_time')} AS start_time, ${iso('c.end_time')} AS end_time,
                   c.distribution_channels, c.autocampaign_id, c.template_id, c.action_template_id::text,
                   a.chain_id AS allow_list_chain_id, a.contract_address AS allow_list_contract, c.campaign_name, c.nft_image_uri,
                   c.nft_name, c.nft_metadata_id, c.project_image_uri, c.token_image_uri, c.action_token_address, c.action_claimant,
                   (SELECT coalesce(jsonb_agg(jsonb_build_object('type', i.type, 'params', i.params)
                                             || CASE WHEN i.balance IS NULL THEN '{}' ELSE jsonb_build_object('balance', i.balance::text) END
                                             ORDER BY i.position), '[]')
                      FROM incentives AS i WHERE i.campaign_key = c.key) AS incentives,
                   (SELECT coalesce(json_agg(json_build_object(
                             'chainId', s.chain_id, 'targetContract', s.target_contract, 'claimant', s.claimant,
                             'signature', s.signature, 'signatureName', s.signature_name, 'signatureType', s.signature_type,
                             'actionType', s.action_type, 'parameters', s.parameters) ORDER BY s.position), '[]')
                      FROM action_steps AS s WHERE s.campaign_key = c.key) AS steps
              FROM campaigns AS c LEFT JOIN allow_lists AS a ON a.id = c.allow_list_id
             WHERE c.key > ${after ?? 0} AND ${filter} ORDER BY c.key LIMIT ${PAGE}`,
      ),
    (row) => Number(row.key),
  )) {
    yield {
      kind: 'campaign',
      chainId: row.chain_id,
      coreAddress: row.core_address,
      identifier: row.identifier,
      campaignIndex: row.campaign_index,
      owner: row.owner,
      creator: row.creator,
      budget: row.budget,
      validator: row.validator,
      action: row.action,
      protocolFee: row.protocol_fee,
      maxParticipants: row.max_participants,
      blockTimestamp: Number(row.block_timestamp),
      blockNumber: Number(row.block_number),
      txHash: row.tx_hash,
      startTime: trimIso(row.start_time as string | null),
      endTime: trimIso(row.end_time as string | null),
      distributionChannels: row.distribution_channels,
      autocampaignId: row.autocampaign_id,
      templateId: row.template_id,
      actionTemplateId: row.action_template_id,
      allowList: row.allow_list_chain_id === null ? null : { chainId: row.allow_list_chain_id, contractAddress: row.allow_list_contract },
      campaignName: row.campaign_name,
      nftImageUri: row.nft_image_uri,
      nftName: row.nft_name,
      nftMetadataId: row.nft_metadata_id,
      projectImageUri: row.project_image_uri,
      tokenImageUri: row.token_image_uri,
      actionTokenAddress: row.action_token_address,
      actionClaimant: row.action_claimant,
      incentives: row.incentives,
      steps: row.steps,
    } as RecordOf<'campaign'>;
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
    yield {
      kind: 'claimSignature',
      campaign: row.campaign,
      signature: row.signature,
      claimant: row.claimant,
      incentiveId: row.incentive_id,
      referrer: row.referrer,
      used: row.used,
    } as RecordOf<'claimSignature'>;
  }
}

async function* claims(query: Query): AsyncGenerator<UpsertRecord> {
  for await (const row of pages<number>(
    (after) =>
      query<Row>(
        sql`SELECT k.id::text, k.chain_id, k.tx_hash, k.log_index, c.public_id AS campaign, k.incentive_position, k.claimant,
                   k.amount::text, k.usd_value::text, k.eth_value_wei::text, k.value_pending, ${iso('k.claimed_at')} AS claimed_at
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
