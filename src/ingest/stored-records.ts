import { type SQL, sql } from 'drizzle-orm';
import type { CampaignRecord } from './records.js';

/**
 * Records as the stored rows make them, where more than one reader needs them: the exporter pages
 * over every campaign (export.ts), the chain indexer reads the few a block range rewrites by their
 * natural key (src/indexer/store.ts).
 */

/** ISO 8601 in UTC, to the microsecond PostgreSQL keeps, shortened to milliseconds when that is all there is. */
export const iso = (column: string) => sql.raw(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);
export const trimIso = (value: string | null) => (value === null ? null : value.replace(/(\.[0-9]{3})000Z$/, '$1Z'));

type Row = Record<string, unknown>;

/** A column's record field: its name in camelCase (`imageUri` for `image_uri`). */
export const fieldOf = (column: string) => column.replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase());

/** A row as record fields, in the order the query selects its columns, but for the columns `left` names (a paging key). */
export function fieldsOf(row: Row, ...left: string[]): Row {
  return Object.fromEntries(Object.entries(row).flatMap(([column, value]) => (left.includes(column) ? [] : [[fieldOf(column), value]])));
}

/** The campaigns `where` selects (on `c`, the campaigns table), in write order, as rows for campaignRecordOf(). */
export function campaignRecordsQuery(where: SQL, limit?: number): SQL {
  return sql`SELECT c.key, c.chain_id, c.core_address, c.identifier::text, c.campaign_index::text, c.owner, c.creator, c.budget,
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
             WHERE ${where} ORDER BY c.key${limit === undefined ? sql`` : sql` LIMIT ${limit}`}`;
}

export function campaignRecordOf(row: Row): CampaignRecord {
  return {
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
  } as CampaignRecord;
}
