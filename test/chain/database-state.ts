import { sql } from 'drizzle-orm';
import { type DatabaseHandle, queryRows } from '../../src/db/client.js';

/** Every table the indexer writes (its own state included, timestamps of writing left out), as one comparable value. */
const TABLES: Record<string, string> = {
  allow_lists: 'chain_id, contract_address, owner, type',
  allow_list_addresses: 'address',
  campaigns: 'public_id, owner, creator, budget, validator, action, protocol_fee, max_participants, block_number, block_timestamp, tx_hash',
  incentives: 'position, type, params, total_claims, total_amount_claimed, total_usd_claimed',
  action_steps: 'position, signature, signature_type, target_contract, parameters',
  claims: 'chain_id, tx_hash, log_index, incentive_position, claimant, amount, usd_value, eth_value_wei, claimed_at',
  campaign_documents: 'list_item, detail',
  indexer_checkpoints: 'chain_id, core_address, block_number, block_hash',
  indexer_blocks: 'chain_id, core_address, block_number, block_hash',
  indexer_writes: 'chain_id, core_address, block_number, kind, natural_key',
  indexer_incentives: 'chain_id, core_address, boost_id, incentive_id, address, position',
};

export async function databaseState(database: DatabaseHandle): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const [table, columns] of Object.entries(TABLES)) {
    const [row] = await queryRows<{ digest: string | null; n: number }>(
      database.db,
      sql.raw(`SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest, count(*)::int AS n FROM (SELECT ${columns} FROM ${table}) AS t`),
    );
    result[table] = `${row!.n}:${row!.digest ?? ''}`;
  }
  return result;
}
