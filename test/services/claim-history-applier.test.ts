import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { type DatabaseHandle, openDatabase, queryRows } from '../../src/db/client.js';
import { ClaimHistoryApplier } from '../../src/services/claim-history-applier.js';
import { buildTestApp, useTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertClaim } from '../helpers/factories.js';

const quiet = { warn: vi.fn(), info: vi.fn() };

describe('the claim history applier', () => {
  it('applies every interval, not before start-up work is done, and nothing after close', async () => {
    let migrating = true;
    const startup = { pending: () => (migrating ? 'migrations' : undefined) };
    let applied = 0;
    const applier = new ClaimHistoryApplier({ apply: async () => void applied++, intervalMs: 10, startup, logger: quiet });
    applier.start();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(applied).toBe(0);
    migrating = false;
    await vi.waitFor(() => expect(applied).toBeGreaterThan(2));
    await applier.close();
    const atClose = applied;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(applied).toBe(atClose);
  });

  it('logs a failing round once, and its recovery', async () => {
    const logger = { warn: vi.fn(), info: vi.fn() };
    let failing = true;
    let rounds = 0;
    const applier = new ClaimHistoryApplier({
      apply: async () => {
        rounds++;
        if (failing) throw new Error('connection refused');
      },
      intervalMs: 5,
      logger,
    });
    applier.start();
    await vi.waitFor(() => expect(rounds).toBeGreaterThan(3));
    failing = false;
    await vi.waitFor(() => expect(logger.info).toHaveBeenCalledTimes(1));
    await applier.close();
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  describe('in the app', () => {
    const setup = useTestApp({ CLAIM_HISTORY_APPLY_MS: '20' });

    it('brings the history tables forward to the claims written since, by itself', async () => {
      const { database } = setup;
      const campaign = await insertCampaign(database.db, { incentives: [erc20Incentive(`0x${'a'.repeat(40)}`)] });
      await insertClaim(database.db, { campaignKey: campaign.key, claimedAt: new Date('2026-11-20T10:15:00Z') });
      await vi.waitFor(
        async () => {
          const [row] = await queryRows<{ claims: number }>(
            database.db,
            sql`SELECT coalesce(sum(claims), 0)::integer AS claims FROM claim_hours WHERE campaign_key = ${campaign.key}`,
          );
          expect(row!.claims).toBe(1);
        },
        { timeout: 5_000, interval: 20 },
      );
      const [pending] = await queryRows<{ pending: number }>(
        database.db,
        sql`SELECT count(*)::integer AS pending FROM claim_history_changes((SELECT snapshot FROM claim_history_applied), NULL)`,
      );
      expect(pending!.pending).toBe(0);
    });
  });

  // Statement timeouts are PostgreSQL's: PGlite does not cancel a statement.
  describe.runIf(process.env.TEST_DATABASE_URL)('in an app whose requests may take only 50 ms', () => {
    let database: TestDatabase;
    let appDatabase: DatabaseHandle;
    let app: App;
    beforeAll(async () => {
      database = await createTestDatabase();
      appDatabase = await openDatabase({
        DATABASE_URL: database.url,
        PGLITE_DATA_DIR: 'memory://',
        DB_POOL_MAX: 4,
        DB_STATEMENT_TIMEOUT_MS: 50,
        DB_CONNECT_TIMEOUT_MS: 5_000,
      });
      app = await buildTestApp(appDatabase, { CLAIM_HISTORY_APPLY_MS: '20', DB_STATEMENT_TIMEOUT_MS: '50' });
    });
    afterAll(async () => {
      await app?.close();
      await appDatabase?.close();
      await database?.close();
    });

    it('applies a backlog that takes longer than a request may, and the recompute a bulk load leaves', async () => {
      const campaign = await insertCampaign(database.db, { incentives: [erc20Incentive(`0x${'a'.repeat(40)}`)] });
      const pendingCount = async () => {
        const [row] = await queryRows<{ pending: number }>(
          database.db,
          sql`SELECT count(*)::integer AS pending FROM claim_history_changes((SELECT snapshot FROM claim_history_applied), NULL)`,
        );
        return row!.pending;
      };
      const claimsOfAnHourEach = (first: number) =>
        sql.raw(`INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index)
                 SELECT ${campaign.key}, 0, '0x' || lpad(to_hex(g), 40, '0'), 1, 1, 1, '0x' || lpad(to_hex(g), 64, '0'),
                        '2026-11-01T00:00:00Z'::timestamptz + g * interval '1 hour', 8453, 0
                   FROM generate_series(${first}, ${first + 19_999}) AS g`);
      // 20,000 claimants new to the campaign, each in an hour of their own: one batch, seconds of work.
      await database.db.execute(claimsOfAnHourEach(1));
      await vi.waitFor(async () => expect(await pendingCount()).toBe(0), { timeout: 12_000, interval: 100 });
      // A bulk load marks the history for a recompute, which takes longer still.
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT set_config('campaign_service.defer_refresh', 'on', true)`);
        await tx.execute(claimsOfAnHourEach(20_001));
      });
      const applied = async () => {
        const [row] = await queryRows<{ claims: number; claimants: number }>(
          database.db,
          sql`SELECT (SELECT coalesce(sum(claims), 0)::integer FROM claim_hours WHERE campaign_key = ${campaign.key}) AS claims,
                     (SELECT count(*)::integer FROM claimant_firsts WHERE campaign_key = ${campaign.key}) AS claimants`,
        );
        return row;
      };
      await vi.waitFor(async () => expect(await applied()).toEqual({ claims: 40_000, claimants: 40_000 }), { timeout: 12_000, interval: 100 });
    });
  });
});
