import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claimChangeMarks, claimChanges, claims } from '../../src/db/schema.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign, insertClaim } from '../helpers/factories.js';

interface ChangeRow {
  campaign_key: number | null;
  usd_value: string | null;
  sign: number;
}

/** The trigger behind the claim change feed (src/db/sql/claims_volume_feed.sql, prune_claim_changes.sql). */
describe('claim change feed', () => {
  let database: TestDatabase;
  let campaignKey: number;
  let campaignPublicId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ key: campaignKey, publicId: campaignPublicId } = await insertCampaign(database.db));
  });
  afterAll(() => database.close());
  beforeEach(async () => {
    await database.db.delete(claims);
    await database.db.delete(claimChanges);
    await database.db.delete(claimChangeMarks);
  });

  const changes = () =>
    queryRows<ChangeRow>(
      database.db,
      sql`SELECT campaign_key, usd_value::text AS usd_value, sign FROM claim_changes ORDER BY xid, sign, usd_value`,
    );

  it('records an insert, an update of a value, an update that moves a claim, and a delete, each in its writing transaction', async () => {
    const claim = await insertClaim(database.db, { campaignKey, usdValue: '2.5' });
    expect(await changes()).toEqual([{ campaign_key: campaignKey, usd_value: '2.500000', sign: 1 }]);
    // The campaign's public ID travels with the change: a reader needs no other table.
    const [{ public_id: publicId } = { public_id: '' }] = await queryRows<{ public_id: string }>(
      database.db,
      sql`SELECT public_id FROM claim_changes`,
    );
    expect(publicId).toBe(campaignPublicId);

    // The value alone: one change of the value, by the difference; the claim counts as before.
    await database.db.delete(claimChanges);
    await database.db.execute(sql`UPDATE claims SET usd_value = 3 WHERE id = ${claim.id}`);
    expect(await changes()).toEqual([{ campaign_key: campaignKey, usd_value: '0.500000', sign: 0 }]);
    await database.db.delete(claimChanges);
    await database.db.execute(sql`UPDATE claims SET usd_value = 1 WHERE id = ${claim.id}`);
    expect(await changes()).toEqual([{ campaign_key: campaignKey, usd_value: '-2.000000', sign: 0 }]);

    // Moved to another instant (with another value): it leaves where it was and enters where it is.
    await database.db.delete(claimChanges);
    await database.db.execute(sql`UPDATE claims SET claimed_at = claimed_at - interval '1 hour', usd_value = 3 WHERE id = ${claim.id}`);
    expect(await changes()).toEqual([
      { campaign_key: campaignKey, usd_value: '1.000000', sign: -1 },
      { campaign_key: campaignKey, usd_value: '3.000000', sign: 1 },
    ]);

    await database.db.delete(claimChanges);
    await database.db.execute(sql`DELETE FROM claims WHERE id = ${claim.id}`);
    expect(await changes()).toEqual([{ campaign_key: campaignKey, usd_value: '3.000000', sign: -1 }]);
  });

  it('records nothing for an update that leaves campaign, instant, value, amount and incentive alone', async () => {
    const claim = await insertClaim(database.db, { campaignKey });
    await database.db.delete(claimChanges);
    await database.db.execute(sql`UPDATE claims SET eth_value_wei = 7 WHERE id = ${claim.id}`);
    expect(await changes()).toEqual([]);
  });

  it('records a change of nothing (USD 0) for an update of the amount alone: its hour of the history is counted again', async () => {
    const claim = await insertClaim(database.db, { campaignKey });
    await database.db.delete(claimChanges);
    await database.db.execute(sql`UPDATE claims SET amount = 7 WHERE id = ${claim.id}`);
    expect(await changes()).toEqual([{ campaign_key: campaignKey, usd_value: '0.000000', sign: 0 }]);
  });

  it('records one reload marker for a TRUNCATE and for a bulk load, not a row per claim', async () => {
    await database.db.execute(sql`TRUNCATE claims`);
    expect(await changes()).toEqual([{ campaign_key: null, usd_value: null, sign: 0 }]);

    await database.db.delete(claimChanges);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT set_config('campaign_service.defer_refresh', 'on', true)`);
      await tx.insert(claims).values(
        [1, 2, 3].map((n) => ({
          campaignKey,
          chainId: sql<number>`(SELECT chain_id FROM campaigns WHERE key = ${campaignKey})`,
          logIndex: n,
          incentivePosition: 0,
          claimant: `0x${n.toString(16).padStart(40, '0')}`,
          amount: '1',
          usdValue: '1',
          ethValueWei: '1',
          txHash: `0x${'0'.repeat(64)}`,
          claimedAt: new Date(),
        })),
      );
    });
    expect(await changes()).toEqual([{ campaign_key: null, usd_value: null, sign: 0 }]);
  });

  /** A mark taken right after the last write's transaction, as if 11 minutes ago, and none newer. (Its
   * snapshot is written out: a real one's xmin is held back by any transaction open on the server.) */
  const oldMarkAfterLastWrite = async () => {
    await database.db.delete(claimChangeMarks);
    await database.db.execute(
      sql`INSERT INTO claim_change_marks (taken_at, snapshot)
          SELECT clock_timestamp() - interval '11 minutes', (next || ':' || next || ':')::pg_snapshot
            FROM (SELECT max(xid)::text::bigint + 1 AS next FROM claim_changes) AS after_write`,
    );
  };

  it('keeps the changes the campaign history has not applied yet, however old', async () => {
    await database.db.delete(claimChanges);
    await database.db.execute(sql`SELECT apply_claim_history()`);
    await insertClaim(database.db, { campaignKey, usdValue: '1' });
    await oldMarkAfterLastWrite();
    await insertClaim(database.db, { campaignKey, usdValue: '2' });
    expect(await changes()).toHaveLength(2);
  });

  it('prunes the changes committed before a mark once the mark is 10 minutes old, at most once a minute', async () => {
    await database.db.delete(claimChangeMarks);
    await insertClaim(database.db, { campaignKey, usdValue: '1' });
    // The write left a mark; nothing is pruned while the newest mark is under a minute old.
    expect(await database.db.$count(claimChangeMarks)).toBe(1);
    await oldMarkAfterLastWrite();
    // The campaign history has applied the first claim's change.
    await database.db.execute(sql`SELECT apply_claim_history()`);
    await insertClaim(database.db, { campaignKey, usdValue: '2' });
    // The first claim's change committed before the old mark: gone. The second's stays, with a new mark.
    expect(await changes()).toEqual([{ campaign_key: campaignKey, usd_value: '2.000000', sign: 1 }]);
    expect(await database.db.$count(claimChangeMarks)).toBe(2);
    await insertClaim(database.db, { campaignKey, usdValue: '3' });
    expect(await database.db.$count(claimChangeMarks)).toBe(2);
    expect(await changes()).toHaveLength(2);
  });
});
