import { type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import type { PageRequest } from '../schemas/common.js';
import type { BudgetAccount, BudgetAccountList } from '../schemas/registry.js';
import { whereClause } from './campaign-filters.js';

export interface BudgetAccountFilters {
  chainId?: number;
  member?: string;
  owner?: string;
}

interface AccountRow {
  chain_id: number;
  address: string;
  registry_type: BudgetAccount['registryType'];
  base_implementation: string;
  deployed_instance: string;
  tx_hash: string;
  block_timestamp: string;
  block_number: string;
  name: string | null;
  owner: string;
  hidden: boolean;
  label: string | null;
  deprecated: boolean;
  members: { member_address: string; roles: number[]; status: string | null }[];
}

/**
 * The account's columns and its members. E-mail columns are never selected: they are personal
 * data the API never serves (always null), so no code path can leak them.
 */
const COLUMNS = sql`a.chain_id, a.address, a.registry_type, a.base_implementation, a.deployed_instance, a.tx_hash,
  a.block_timestamp::text AS block_timestamp, a.block_number::text AS block_number, a.name, a.owner, a.hidden, a.label,
  a.deprecated,
  (SELECT coalesce(json_agg(json_build_object('member_address', m.member_address, 'roles', m.roles, 'status', m.status)
                            ORDER BY m.member_address), '[]')
     FROM budget_account_members AS m
    WHERE m.chain_id = a.chain_id AND m.account_address = a.address) AS members`;

/** The budget registry. Lists exclude hidden accounts and run in (chain, address) order on a partial index. */
export function createBudgetAccountsRepository(db: Database) {
  return {
    async listAccounts(filters: BudgetAccountFilters, page: PageRequest): Promise<BudgetAccountList> {
      const conditions: SQL[] = [sql`NOT a.hidden`];
      if (filters.chainId !== undefined) conditions.push(sql`a.chain_id = ${filters.chainId}`);
      if (filters.owner !== undefined) conditions.push(sql`a.owner = ${filters.owner}`);
      if (filters.member !== undefined) {
        conditions.push(sql`EXISTS (SELECT 1 FROM budget_account_members AS f
          WHERE f.member_address = ${filters.member} AND f.chain_id = a.chain_id AND f.account_address = a.address)`);
      }
      const rows = await queryRows<AccountRow>(
        db,
        sql`SELECT ${COLUMNS} FROM budget_accounts AS a ${whereClause(conditions)}
             ORDER BY a.chain_id, a.address LIMIT ${page.limit} OFFSET ${page.offset}`,
        { planPerValue: filters.member !== undefined || filters.owner !== undefined },
      );
      return rows.map(({ ...row }) => toListItem(row));
    },

    async findAccount(chainId: number, address: string): Promise<BudgetAccount | null> {
      const [row] = await queryRows<AccountRow>(
        db,
        sql`SELECT ${COLUMNS} FROM budget_accounts AS a WHERE a.chain_id = ${chainId} AND a.address = ${address}`,
      );
      if (row === undefined) return null;
      const { hidden, label, members, deprecated, ...head } = toListItem(row);
      // ownerEmail goes after head's fields; Object.assign rather than `{ ...head, ... }`, whose new
      // hidden class per call lives in the old generation (docs/design.md).
      return Object.assign(head, { ownerEmail: null, hidden, label, members, deprecated });
    },
  };
}

export type BudgetAccountsRepository = ReturnType<typeof createBudgetAccountsRepository>;

function toListItem(row: AccountRow): BudgetAccountList[number] {
  return {
    id: `${row.chain_id}:${row.address}`,
    identifier: row.address,
    registryType: row.registry_type,
    baseImplementation: row.base_implementation,
    deployedInstance: row.deployed_instance,
    txHash: row.tx_hash,
    blockTimestamp: row.block_timestamp,
    blockNumber: row.block_number,
    chainId: row.chain_id,
    ...(row.name === null ? {} : { name: row.name }),
    address: row.address,
    owner: row.owner,
    hidden: row.hidden,
    label: row.label,
    members: row.members.map((member) => ({
      memberAddress: member.member_address,
      roles: member.roles,
      email: null,
      ...(member.status === null ? {} : { status: member.status as NonNullable<BudgetAccountList[number]['members'][number]['status']> }),
    })),
    deprecated: row.deprecated,
  };
}
