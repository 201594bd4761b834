import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { MIGRATIONS_FOLDER, migratePostgres } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign, insertClaim } from '../helpers/factories.js';
import { withDatabase } from '../helpers/test-server.js';

/** A claim is identified by its chain, transaction hash and log index (docs/writing-data.md). */
describe('the claims natural key', () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.close());

  const errorCode = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return 'none';
    } catch (error) {
      const cause = (error as { cause?: { code?: string }; code?: string }).cause ?? error;
      return (cause as { code?: string }).code;
    }
  };

  it('refuses a second claim with the same chain, transaction hash and log index', async () => {
    const campaign = await insertCampaign(database.db, { chainId: 10 });
    const txHash = `0x${'ab'.repeat(32)}`;
    await insertClaim(database.db, { campaignKey: campaign.key, txHash, logIndex: 3 });
    await insertClaim(database.db, { campaignKey: campaign.key, txHash, logIndex: 4 });
    expect(await errorCode(insertClaim(database.db, { campaignKey: campaign.key, txHash, logIndex: 3 }))).toBe('23505');
    // The same transaction hash and log index on another chain is another claim.
    const elsewhere = await insertCampaign(database.db, { chainId: 8453 });
    expect(await errorCode(insertClaim(database.db, { campaignKey: elsewhere.key, txHash, logIndex: 3 }))).toBe('none');
  });

  it("refuses a claim whose chain is not its campaign's, written or moved there", async () => {
    const campaign = await insertCampaign(database.db, { chainId: 10 });
    expect(await errorCode(insertClaim(database.db, { campaignKey: campaign.key, chainId: 8453 }))).toBe('23503');
    const claim = await insertClaim(database.db, { campaignKey: campaign.key });
    const elsewhere = await insertCampaign(database.db, { chainId: 8453 });
    expect(
      await errorCode(database.db.execute(sql`UPDATE claims SET campaign_key = ${elsewhere.key} WHERE id = ${claim.id}`)),
    ).toBe('23503');
    // Moved with its chain, it is its new campaign's claim.
    await database.db.execute(sql`UPDATE claims SET campaign_key = ${elsewhere.key}, chain_id = 8453 WHERE id = ${claim.id}`);
  });

  it("keeps a campaign's chain, with or without claims, and lets every other change through", async () => {
    const claimed = await insertCampaign(database.db, { chainId: 10 });
    await insertClaim(database.db, { campaignKey: claimed.key });
    const unclaimed = await insertCampaign(database.db, { chainId: 10 });
    for (const campaign of [claimed, unclaimed]) {
      expect(await errorCode(database.db.execute(sql`UPDATE campaigns SET chain_id = 8453 WHERE key = ${campaign.key}`))).toBe('23000');
      // The same chain written again is no change.
      expect(await errorCode(database.db.execute(sql`UPDATE campaigns SET chain_id = 10 WHERE key = ${campaign.key}`))).toBe('none');
      expect(await errorCode(database.db.execute(sql`UPDATE campaigns SET campaign_name = 'renamed' WHERE key = ${campaign.key}`))).toBe('none');
    }
  });
});

const server = inject('testDatabase');

/**
 * The chain check of a bulk write, as the seeder and an import into an empty database run it: the
 * campaigns' indexes set aside (here: the primary key dropped inside a transaction that rolls back).
 * Under EXISTS the planner took a nested loop comparing every claim with every campaign: a million
 * claims into 100,000 campaigns took hours. auto_explain hands the trigger statement's plan back.
 */
describe.runIf(server.kind === 'postgres')("the chain check of a bulk write", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    for (let index = 0; index < 40; index++) await insertCampaign(database.db, { chainId: 10 });
  });
  afterAll(() => database.close());

  const bulkInsert = async (mismatched: boolean) => {
    const client = new pg.Client({ connectionString: database.url });
    const plans: string[] = [];
    client.on('notice', (notice) => {
      if (notice.message?.includes('new_claims AS n LEFT JOIN campaigns')) plans.push(notice.message);
    });
    await client.connect();
    try {
      await client.query(`LOAD 'auto_explain'`);
      await client.query(`SET auto_explain.log_min_duration = 0`);
      await client.query(`SET auto_explain.log_nested_statements = on`);
      await client.query(`SET auto_explain.log_level = notice`);
      await client.query('BEGIN');
      await client.query(`SELECT set_config('campaign_service.defer_refresh', 'on', true)`);
      await client.query('ALTER TABLE campaigns DROP CONSTRAINT campaigns_pkey CASCADE');
      // Ten claims per campaign; with `mismatched`, one of them names another chain.
      const chainId = mismatched ? 'CASE WHEN g = 10 AND c.key = (SELECT max(key) FROM campaigns) THEN 8453 ELSE c.chain_id END' : 'c.chain_id';
      const error = await client
        .query(
          `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
           SELECT c.key, ${chainId}, 0, '0x' || lpad(to_hex(g), 40, '0'), 1, 1, 0, '0x' || lpad(to_hex(c.key), 64, '0'), g, now()
             FROM campaigns AS c CROSS JOIN generate_series(1, 10) AS g`,
        )
        .then(
          () => undefined,
          (failure: { code?: string }) => failure.code,
        );
      return { plans, error };
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    }
  };

  it('looks each claim\'s campaign up once, not every campaign per claim', async () => {
    const { plans, error } = await bulkInsert(false);
    expect(error).toBeUndefined();
    expect(plans).toHaveLength(1);
    // The quadratic plan: a nested loop over the claims with the campaigns' whole table inside it.
    expect(plans[0]).not.toMatch(/Nested Loop[\s\S]*Seq Scan on campaigns/);
  });

  it('still refuses a claim of another chain among many', async () => {
    expect((await bulkInsert(true)).error).toBe('23503');
  });
});

describe.runIf(server.kind === 'postgres')('the migration that adds the natural key', () => {
  const name = `campaign_natural_key_${process.pid}`;
  let admin: pg.Client;
  let folder: string;
  beforeAll(async () => {
    if (server.kind !== 'postgres') return;
    admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
    // The migrations as they stood before the key was filled in and required.
    folder = mkdtempSync(join(tmpdir(), 'migrations-before-key-'));
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalPath = join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
    const added = journal.entries.findIndex((entry) => entry.tag.endsWith('_claims_natural_key_columns'));
    writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, added + 1) }));
  });
  afterAll(async () => {
    if (server.kind !== 'postgres') return;
    rmSync(folder, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  it("fills existing claims with their campaign's chain and distinct log indexes per transaction, totals unchanged", async () => {
    if (server.kind !== 'postgres') return;
    const url = withDatabase(server.adminUrl, name);
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migrate(drizzle({ client }), { migrationsFolder: folder });
      const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
      await client.query(
        `INSERT INTO campaigns (key, chain_id, core_address, identifier, campaign_index, owner, creator, budget, validator, action,
                                protocol_fee, max_participants, block_timestamp, block_number, tx_hash)
         VALUES (1, 10, $1, 1, 1, $1, $1, $1, $1, $1, 0, 10, 1700000000, 1, '0x01'),
                (2, 8453, $1, 2, 2, $1, $1, $1, $1, $1, 0, 10, 1700000000, 1, '0x02')`,
        [address(1)],
      );
      await client.query(
        `INSERT INTO incentives (campaign_key, position, type, params) VALUES
           (1, 0, 'ERC20Incentive', '{"asset": "${address(2)}", "strategy": 0, "reward": "5", "limit": "10"}'),
           (2, 0, 'ERC20Incentive', '{"asset": "${address(2)}", "strategy": 0, "reward": "5", "limit": "10"}')`,
      );
      await client.query(
        `INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at) VALUES
           (1, 0, $1, 5, 1, 1, '0xaa', now()), (1, 0, $1, 5, 1, 1, '0xaa', now()),
           (1, 0, $1, 5, 1, 1, '0xbb', now()), (2, 0, $1, 5, 1, 1, '0xaa', now())`,
        [address(3)],
      );
      const totals = 'SELECT campaign_key, total_claims, total_amount_claimed FROM incentives ORDER BY 1';
      const before = (await client.query(totals)).rows;

      await migratePostgres(url, 5000);

      const { rows } = await client.query(
        'SELECT campaign_key, chain_id, tx_hash, log_index FROM claims ORDER BY id',
      );
      expect(rows).toEqual([
        { campaign_key: 1, chain_id: 10, tx_hash: '0xaa', log_index: 0 },
        { campaign_key: 1, chain_id: 10, tx_hash: '0xaa', log_index: 1 },
        { campaign_key: 1, chain_id: 10, tx_hash: '0xbb', log_index: 0 },
        { campaign_key: 2, chain_id: 8453, tx_hash: '0xaa', log_index: 0 },
      ]);
      expect((await client.query(totals)).rows).toEqual(before);
      expect(before[0]).toEqual({ campaign_key: 1, total_claims: '3', total_amount_claimed: '15' });
    } finally {
      await client.end();
    }
  });
});
