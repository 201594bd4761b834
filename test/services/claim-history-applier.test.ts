import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { ClaimHistoryApplier } from '../../src/services/claim-history-applier.js';
import { useTestApp } from '../helpers/app.js';
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
});
