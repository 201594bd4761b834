import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';

export function createContractsRepository(db: Database) {
  return {
    /** The campaigns an address deployed (explore contracts' userAddress). */
    async findCampaignKeysByCreator(creator: string): Promise<Set<number>> {
      const rows = await queryRows<{ key: number }>(db, sql`SELECT key FROM campaigns WHERE creator = ${creator}`);
      return new Set(rows.map((row) => row.key));
    },
  };
}

export type ContractsRepository = ReturnType<typeof createContractsRepository>;
