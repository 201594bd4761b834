import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { MIGRATIONS_FOLDER, migratePostgres } from '../../src/db/migrate.js';
import { withDatabase } from '../helpers/test-server.js';

/**
 * Draws stored before `claims.draw` existed were claims: the migration that marks them takes them
 * out of the RAFFLE's claim count (and the campaign's live fields), keeping their amount.
 */
describe('the migration that marks stored raffle draws', () => {
  const server = inject('testDatabase');

  it.runIf(server.kind === 'postgres')("marks a RAFFLE's payout as its draw and counts the entries alone", async () => {
    const name = `campaign_draws_${process.pid}`;
    const admin = new pg.Client({ connectionString: server.kind === 'postgres' ? server.adminUrl : '' });
    await admin.connect();
    // The migrations up to the one that marks the draws.
    const before = mkdtempSync(join(tmpdir(), 'migrations-'));
    cpSync(MIGRATIONS_FOLDER, before, { recursive: true });
    const journalPath = join(before, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
    const marking = journal.entries.findIndex((entry) => entry.tag.endsWith('_raffle_draws_marked'));
    expect(marking).toBeGreaterThan(0);
    writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, marking) }));
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.query(`CREATE DATABASE "${name}"`);
      const url = withDatabase(server.kind === 'postgres' ? server.adminUrl : '', name);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await migrate(drizzle({ client }), { migrationsFolder: before });
        const [{ key }] = (
          await client.query<{ key: number }>(
            `INSERT INTO campaigns (chain_id, core_address, identifier, campaign_index, owner, creator, budget, validator, action,
                                    protocol_fee, max_participants, block_timestamp, block_number, tx_hash)
             VALUES (8453, '0x${'c'.repeat(40)}', 1, 1, '0x${'1'.repeat(40)}', '0x${'1'.repeat(40)}', '0x${'2'.repeat(40)}',
                     '0x${'3'.repeat(40)}', '0x${'4'.repeat(40)}', 0, 0, 1, 1, '0x${'5'.repeat(64)}') RETURNING key`,
          )
        ).rows as [{ key: number }];
        await client.query(
          `INSERT INTO incentives (campaign_key, position, type, params) VALUES
             ($1, 0, 'ERC20Incentive', '{"asset": "0x${'6'.repeat(40)}", "strategy": 1, "reward": "5", "limit": "10"}'),
             ($1, 1, 'ERC20Incentive', '{"asset": "0x${'6'.repeat(40)}", "strategy": 0, "reward": "5", "limit": "10"}')`,
          [key],
        );
        // Two entries and the draw of the RAFFLE; a claim of the POOL beside it.
        const claim = (n: number, position: number, amount: string) =>
          client.query(
            `INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index)
             VALUES ($1, $2, '0x${'7'.repeat(40)}', $3, 1, 1, $4, now(), 8453, 0)`,
            [key, position, amount, `0x${n.toString(16).padStart(64, '0')}`],
          );
        await claim(1, 0, '0');
        await claim(2, 0, '0');
        await claim(3, 0, '5');
        await claim(4, 1, '5');
      } finally {
        await client.end();
      }

      await migratePostgres(url);
      const check = new pg.Client({ connectionString: url });
      await check.connect();
      try {
        const draws = await check.query<{ tx_hash: string }>('SELECT tx_hash FROM claims WHERE draw');
        expect(draws.rows).toEqual([{ tx_hash: `0x${(3).toString(16).padStart(64, '0')}` }]);
        const totals = await check.query<{ position: number; total_claims: string; total_amount_claimed: string }>(
          'SELECT position, total_claims::text, total_amount_claimed::text FROM incentives ORDER BY position',
        );
        expect(totals.rows).toEqual([
          { position: 0, total_claims: '2', total_amount_claimed: '5' },
          { position: 1, total_claims: '1', total_amount_claimed: '5' },
        ]);
        const live = await check.query<{ fields: string }>(`SELECT array_to_string(incentive_fields, ' ') AS fields FROM campaign_live`);
        expect(live.rows[0]!.fields).toContain('"limit":"8","claimedAmount":"5","totalClaims":"2"');
      } finally {
        await check.end();
      }
    } finally {
      rmSync(before, { recursive: true, force: true });
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
