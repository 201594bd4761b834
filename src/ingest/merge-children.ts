import type { RecordKind } from './records.js';
import type { StagedRows } from './staged-rows.js';

/**
 * The child rows of a record (an access list's members, an allow list's addresses, a campaign's
 * incentives and steps by position), made to match the record; every changed parent is noted
 * (StagedRows.touch), so that the summary counts it as updated.
 * `bulk` (empty tables, see BULK_TABLES): nothing to delete or conflict with, only inserts.
 */
export function childStatements(kind: RecordKind, rows: StagedRows, bulk = false): string[] {
  return bulk ? insertOnly(childStatementsOf(kind, rows, true)) : childStatementsOf(kind, rows, false);
}

/** The statements that add rows; the deletions of rows a record no longer has are for tables that hold some. */
function insertOnly(statements: string[]): string[] {
  return statements.filter((statement) => !/^\s*WITH \w+ AS \(\s*DELETE/.test(statement));
}

function childStatementsOf(kind: RecordKind, rows: StagedRows, bulk: boolean): string[] {
  const upsertOnPosition = (set: string, differs: string) =>
    bulk ? '' : `ON CONFLICT (campaign_key, position) DO UPDATE SET ${set} WHERE ${differs}`;
  const touch = (select: string) => rows.touch(select);
  switch (kind) {
    case 'accessList':
      return [
        `WITH gone AS (
           DELETE FROM access_list_members AS m USING ${rows.of(kind)} AS s
            WHERE NOT s.deleted AND m.access_list_id = (s.record->>'id')::uuid
              AND NOT coalesce(s.record->'members', '[]') ? m.address
           RETURNING m.access_list_id)
         ${touch(`SELECT DISTINCT 'accessList' AS kind, access_list_id::text AS key, 'updated' AS change FROM gone`)}`,
        `WITH added AS (
           INSERT INTO access_list_members (access_list_id, address)
           SELECT (s.record->>'id')::uuid, member FROM ${rows.of(kind)} AS s,
                  jsonb_array_elements_text(coalesce(s.record->'members', '[]')) AS member
            WHERE NOT s.deleted
           ON CONFLICT DO NOTHING
           RETURNING access_list_id)
         ${touch(`SELECT DISTINCT 'accessList' AS kind, access_list_id::text AS key, 'updated' AS change FROM added`)}`,
      ];
    case 'budgetAccount': {
      const account = `(s.record->>'chainId')::integer, s.record->>'address'`;
      const touched = `SELECT DISTINCT 'budgetAccount' AS kind, chain_id || ':' || account_address AS key, 'updated' AS change FROM changed`;
      return [
        `WITH changed AS (
           DELETE FROM budget_account_members AS m USING ${rows.of(kind)} AS s
            WHERE NOT s.deleted AND (m.chain_id, m.account_address) = (${account})
              AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(s.record->'members', '[]')) AS e
                               WHERE e.value->>'address' = m.member_address)
           RETURNING m.chain_id, m.account_address)
         ${touch(touched)}`,
        `WITH changed AS (
           INSERT INTO budget_account_members AS m (chain_id, account_address, member_address, roles, email, status)
           SELECT ${account}, e.value->>'address',
                  ARRAY(SELECT jsonb_array_elements_text(e.value->'roles')::smallint), e.value->>'email', e.value->>'status'
             FROM ${rows.of(kind)} AS s, jsonb_array_elements(coalesce(s.record->'members', '[]')) AS e
            WHERE NOT s.deleted
           ON CONFLICT (chain_id, account_address, member_address) DO UPDATE
              SET roles = excluded.roles, email = excluded.email, status = excluded.status
            WHERE (m.roles, m.email, m.status) IS DISTINCT FROM (excluded.roles, excluded.email, excluded.status)
           RETURNING m.chain_id, m.account_address)
         ${touch(touched)}`,
      ];
    }
    case 'allowList': {
      const list = `(SELECT a.id FROM allow_lists AS a
                      WHERE a.chain_id = (s.record->>'chainId')::integer AND a.contract_address = s.record->>'contractAddress')`;
      const keyOf = `(SELECT a.chain_id || ':' || a.contract_address FROM allow_lists AS a WHERE a.id = changed.allow_list_id)`;
      return [
        `WITH gone AS (
           DELETE FROM allow_list_addresses AS m USING ${rows.of(kind)} AS s
            WHERE NOT s.deleted AND m.allow_list_id = ${list}
              AND NOT coalesce(s.record->'addresses', '[]') ? m.address
           RETURNING m.allow_list_id)
         ${touch(`SELECT DISTINCT 'allowList' AS kind, ${keyOf} AS key, 'updated' AS change FROM gone AS changed`)}`,
        `WITH added AS (
           INSERT INTO allow_list_addresses (allow_list_id, address)
           SELECT ${list}, member FROM ${rows.of(kind)} AS s,
                  jsonb_array_elements_text(coalesce(s.record->'addresses', '[]')) AS member
            WHERE NOT s.deleted
           ON CONFLICT DO NOTHING
           RETURNING allow_list_id)
         ${touch(`SELECT DISTINCT 'allowList' AS kind, ${keyOf} AS key, 'updated' AS change FROM added AS changed`)}`,
      ];
    }
    case 'campaign': {
      const staged = `${rows.of(kind)} AS s JOIN campaigns AS c ON c.public_id = s.key COLLATE "C"`;
      const touched = `SELECT DISTINCT 'campaign' AS kind, c.public_id AS key, 'updated' AS change FROM changed JOIN campaigns AS c ON c.key = changed.campaign_key`;
      return [
        // Positions the record no longer has go first; their claims go with them (foreign key cascade).
        `WITH changed AS (
           DELETE FROM incentives AS i USING ${staged}
            WHERE NOT s.deleted AND i.campaign_key = c.key AND i.position >= jsonb_array_length(s.record->'incentives')
           RETURNING i.campaign_key)
         ${touch(touched)}`,
        `WITH changed AS (
           INSERT INTO incentives AS i (campaign_key, position, type, params, balance)
           SELECT c.key, (e.ordinality - 1)::smallint, e.value->>'type', e.value->'params', (e.value->>'balance')::numeric
             FROM ${staged}, jsonb_array_elements(s.record->'incentives') WITH ORDINALITY AS e
            WHERE NOT s.deleted
           ${upsertOnPosition(
             'type = excluded.type, params = excluded.params, balance = excluded.balance',
             '(i.type, i.params, i.balance) IS DISTINCT FROM (excluded.type, excluded.params, excluded.balance)',
           )}
           RETURNING i.campaign_key)
         ${touch(touched)}`,
        `WITH changed AS (
           DELETE FROM action_steps AS a USING ${staged}
            WHERE NOT s.deleted AND a.campaign_key = c.key
              AND a.position >= jsonb_array_length(coalesce(s.record->'steps', '[]'))
           RETURNING a.campaign_key)
         ${touch(touched)}`,
        `WITH changed AS (
           INSERT INTO action_steps AS a (campaign_key, position, chain_id, target_contract, claimant, signature, signature_name,
                                          signature_type, action_type, parameters)
           SELECT c.key, (e.ordinality - 1)::smallint, (e.value->>'chainId')::integer, e.value->>'targetContract',
                  e.value->>'claimant', e.value->>'signature', e.value->>'signatureName', e.value->>'signatureType',
                  (e.value->>'actionType')::integer, e.value->'parameters'
             FROM ${staged}, jsonb_array_elements(coalesce(s.record->'steps', '[]')) WITH ORDINALITY AS e
            WHERE NOT s.deleted
           ${upsertOnPosition(
             `chain_id = excluded.chain_id, target_contract = excluded.target_contract, claimant = excluded.claimant,
              signature = excluded.signature, signature_name = excluded.signature_name,
              signature_type = excluded.signature_type, action_type = excluded.action_type, parameters = excluded.parameters`,
             `(a.chain_id, a.target_contract, a.claimant, a.signature, a.signature_name, a.signature_type, a.action_type, a.parameters)
              IS DISTINCT FROM (excluded.chain_id, excluded.target_contract, excluded.claimant, excluded.signature,
              excluded.signature_name, excluded.signature_type, excluded.action_type, excluded.parameters)`,
           )}
           RETURNING a.campaign_key)
         ${touch(touched)}`,
      ];
    }
    default:
      return [];
  }
}
