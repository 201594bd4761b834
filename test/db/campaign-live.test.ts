import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { claims } from '../../src/db/schema.js';
import { buildTestApp, useTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address, erc20Incentive, insertCampaign, insertClaim } from '../helpers/factories.js';

/**
 * What a claim costs the readers' side: the fields it changes live in campaign_live, so the
 * campaign's stored documents (steps, allow list, every incentive) are not rewritten; reads fill
 * the fields in and answer as before.
 */
describe('a claim leaves the stored documents alone', () => {
  let database: TestDatabase;
  let app: App;
  let campaign: { key: number; publicId: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database);
    campaign = await insertCampaign(database.db, {
      incentives: [erc20Incentive(address(0x7f001), '10', '5'), erc20Incentive(address(0x7f002))],
    });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const rowVersions = async () => {
    const [row] = await queryRows<{ document: string; live: string }>(
      database.db,
      sql`SELECT d.xmin::text AS document, l.xmin::text AS live
            FROM campaign_documents AS d JOIN campaign_live AS l USING (campaign_key)
           WHERE campaign_key = ${campaign.key}`,
    );
    return row!;
  };

  it('rewrites only campaign_live, and reads show the new totals', async () => {
    const before = await rowVersions();
    await insertClaim(database.db, { campaignKey: campaign.key, incentivePosition: 0, amount: '10', usdValue: '1.25' });
    const after = await rowVersions();
    expect(after.document).toBe(before.document);
    expect(after.live).not.toBe(before.live);

    const detail = await app.inject(`/campaigns/${campaign.publicId}`);
    expect(detail.statusCode, detail.body).toBe(200);
    const [first, second] = detail.json<{ incentives: Record<string, unknown>[] }>().incentives;
    expect(first).toMatchObject({ claimedAmount: '10', totalClaims: '1', totalAmountClaimed: '10', remainingBalance: '40' });
    expect(second).toMatchObject({ claimedAmount: '0', totalClaims: '0' });

    const list = await app.inject('/campaigns?pageSize=100&tokenWhitelist=false');
    const item = list.json<{ campaigns: { id: string; usdSpend: number; incentives: Record<string, unknown>[] }[] }>()
      .campaigns.find((entry) => entry.id === campaign.publicId);
    expect(item?.usdSpend).toBe(1.25);
    expect(item?.incentives[0]).toMatchObject({ claimedAmount: '10', remainingBalance: '40' });
  });

  it('rewrites the documents when the campaign itself changes', async () => {
    const before = await rowVersions();
    await database.db.execute(sql`UPDATE campaigns SET campaign_name = 'Renamed' WHERE key = ${campaign.key}`);
    expect((await rowVersions()).document).not.toBe(before.document);
  });
});

/**
 * A claim refreshes the campaign's flags only when it moves an incentive across its claim limit
 * (claims_totals); these are the cases where it does, both ways.
 */
describe('a claim that exhausts or frees an incentive', () => {
  const setup = useTestApp();

  const activity = async (publicId: string) => {
    const detail = await setup.app.inject(`/campaigns/${publicId}`);
    expect(detail.statusCode, detail.body).toBe(200);
    const active = (await setup.app.inject('/campaigns?pageSize=100&tokenWhitelist=false&showActiveOnly=true'))
      .json<{ campaigns: { id: string }[] }>()
      .campaigns.some((item) => item.id === publicId);
    return { isActive: detail.json<{ isActive: boolean }>().isActive, listedAsActive: active };
  };

  it('makes the campaign inactive at its last claim and active again when that claim is deleted', async () => {
    const campaign = await insertCampaign(setup.database.db, { incentives: [erc20Incentive(address(0x7f101), '5', '2')] });
    await insertClaim(setup.database.db, { campaignKey: campaign.key, amount: '5' });
    expect(await activity(campaign.publicId)).toEqual({ isActive: true, listedAsActive: true });

    const last = await insertClaim(setup.database.db, { campaignKey: campaign.key, amount: '5' });
    expect(await activity(campaign.publicId)).toEqual({ isActive: false, listedAsActive: false });

    await setup.database.db.delete(claims).where(eq(claims.id, last.id));
    expect(await activity(campaign.publicId)).toEqual({ isActive: true, listedAsActive: true });
  });

  it('follows a corrected claim: moved to another campaign, and its amount changed in place, both ways', async () => {
    const first = await insertCampaign(setup.database.db, { incentives: [erc20Incentive(address(0x7f103), '5', '1')] });
    const second = await insertCampaign(setup.database.db, { incentives: [erc20Incentive(address(0x7f104), '5', '1')] });
    const claim = await insertClaim(setup.database.db, { campaignKey: first.key, amount: '5', usdValue: '2' });
    expect(await activity(first.publicId)).toEqual({ isActive: false, listedAsActive: false });
    expect(await activity(second.publicId)).toEqual({ isActive: true, listedAsActive: true });

    // A reorganisation's correction: the same claim, now of the other campaign.
    await setup.database.db.execute(sql`
      UPDATE claims SET campaign_key = ${second.key}, chain_id = (SELECT chain_id FROM campaigns WHERE key = ${second.key})
       WHERE id = ${claim.id}`);
    expect(await activity(first.publicId)).toEqual({ isActive: true, listedAsActive: true });
    expect(await activity(second.publicId)).toEqual({ isActive: false, listedAsActive: false });
    const totals = async (key: number) =>
      (await queryRows<{ total_claims: string; total_usd_claimed: string }>(
        setup.database.db,
        sql`SELECT total_claims::text, total_usd_claimed::text FROM incentives WHERE campaign_key = ${key}`,
      ))[0];
    expect(await totals(first.key)).toEqual({ total_claims: '0', total_usd_claimed: '0.000000' });
    expect(await totals(second.key)).toEqual({ total_claims: '1', total_usd_claimed: '2.000000' });
    const detail = await setup.app.inject(`/campaigns/${second.publicId}`);
    expect(detail.json<{ incentives: Record<string, unknown>[] }>().incentives[0]).toMatchObject({ totalClaims: '1', claimedAmount: '5' });

    // In place: an ERC20 incentive's budget is reward x limit (50); one claim corrected to 50 spends it.
    const third = await insertCampaign(setup.database.db, { incentives: [erc20Incentive(address(0x7f105), '5', '10')] });
    const big = await insertClaim(setup.database.db, { campaignKey: third.key, amount: '4' });
    expect(await activity(third.publicId)).toEqual({ isActive: true, listedAsActive: true });
    await setup.database.db.execute(sql`UPDATE claims SET amount = 50 WHERE id = ${big.id}`);
    expect(await activity(third.publicId)).toEqual({ isActive: false, listedAsActive: false });
    await setup.database.db.execute(sql`UPDATE claims SET amount = 1 WHERE id = ${big.id}`);
    expect(await activity(third.publicId)).toEqual({ isActive: true, listedAsActive: true });
  });

  it('leaves a campaign active, its row untouched, after a claim below the limit', async () => {
    const campaign = await insertCampaign(setup.database.db, { incentives: [erc20Incentive(address(0x7f102), '5', '3')] });
    const version = async () =>
      (await queryRows<{ xmin: string }>(setup.database.db, sql`SELECT xmin::text FROM campaigns WHERE key = ${campaign.key}`))[0]!.xmin;
    const before = await version();
    await insertClaim(setup.database.db, { campaignKey: campaign.key, amount: '5' });
    expect(await version()).toBe(before);
    expect(await activity(campaign.publicId)).toEqual({ isActive: true, listedAsActive: true });
  });
});

/**
 * Two transactions writing claims of different incentives of one campaign at once. Each claim's
 * refresh computes the campaign's totals and flags from the incentives it sees: without waiting for
 * the other (lock_campaign_refresh), the one committing last kept a view without the other's claim,
 * its incentive's totals stale in every read until the campaign's next claim. The flags must see both
 * claims too: two that each spend an incentive's last make the campaign inactive. Real concurrent
 * transactions: PostgreSQL.
 */
describe.runIf(inject('testDatabase').kind === 'postgres')('two claims of one campaign written at once', () => {
  let database: TestDatabase;
  let app: App;
  let first: pg.Client;
  let second: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database);
    first = new pg.Client({ connectionString: database.url });
    second = new pg.Client({ connectionString: database.url });
    await Promise.all([first.connect(), second.connect()]);
  });
  afterAll(async () => {
    await Promise.all([first?.end(), second?.end()]);
    await app?.close();
    await database?.close();
  });

  let sequence = 0;
  const claim = (client: pg.Client, campaignKey: number, position: number, amount: string) => {
    sequence++;
    return client.query(
      `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
       VALUES ($1, (SELECT chain_id FROM campaigns WHERE key = $1), $2, $3, $4, 1, 0, $5, 0, now())`,
      [campaignKey, position, address(0x7f200 + sequence), amount, `0x${sequence.toString(16).padStart(64, 'c')}`],
    );
  };

  /** The first writes its claim and holds its transaction open while the second writes; the first commits, then the second. */
  const interleave = async (campaignKey: number, amount: string) => {
    await first.query('BEGIN');
    await second.query('BEGIN');
    try {
      await claim(first, campaignKey, 0, amount);
      const waiting = claim(second, campaignKey, 1, amount);
      // Long enough for the second to reach its refresh (and, without the lock, to finish it).
      await new Promise((resolve) => setTimeout(resolve, 300));
      await first.query('COMMIT');
      await waiting;
      await second.query('COMMIT');
    } catch (error) {
      await Promise.all([first.query('ROLLBACK'), second.query('ROLLBACK')]);
      throw error;
    }
  };

  const detail = async (publicId: string) => {
    const response = await app.inject(`/campaigns/${publicId}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ isActive: boolean; incentives: { totalClaims: string; claimedAmount: string }[] }>();
  };

  it('shows both claims in the totals of both incentives', async () => {
    const campaign = await insertCampaign(database.db, {
      incentives: [erc20Incentive(address(0x7f201), '5', '10'), erc20Incentive(address(0x7f202), '5', '10')],
    });
    await interleave(campaign.key, '5');
    const { incentives } = await detail(campaign.publicId);
    expect(incentives.map(({ totalClaims, claimedAmount }) => ({ totalClaims, claimedAmount }))).toEqual([
      { totalClaims: '1', claimedAmount: '5' },
      { totalClaims: '1', claimedAmount: '5' },
    ]);
  });

  it('makes the campaign inactive when the two claims spend the last of both incentives', async () => {
    const campaign = await insertCampaign(database.db, {
      incentives: [erc20Incentive(address(0x7f203), '5', '1'), erc20Incentive(address(0x7f204), '5', '1')],
    });
    expect((await detail(campaign.publicId)).isActive).toBe(true);
    await interleave(campaign.key, '5');
    expect((await detail(campaign.publicId)).isActive).toBe(false);
    const listed = (await app.inject('/campaigns?pageSize=100&tokenWhitelist=false&showActiveOnly=true'))
      .json<{ campaigns: { id: string }[] }>()
      .campaigns.some((item) => item.id === campaign.publicId);
    expect(listed).toBe(false);
  });
});
