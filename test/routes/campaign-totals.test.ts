import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/** Cached totals follow every kind of write, including the ones statement triggers of INSERT/UPDATE/DELETE miss. */
describe('GET /campaigns totals', () => {
  const setup = useTestApp();

  const total = async () => (await setup.app.inject('/campaigns')).json<{ totalCampaigns: number }>().totalCampaigns;

  it('follow inserts, deletes and a TRUNCATE', async () => {
    const token = await insertToken(setup.database.db);
    const campaign = await insertCampaign(setup.database.db, { incentives: [erc20Incentive(token.address)] });
    await insertCampaign(setup.database.db, { incentives: [erc20Incentive(token.address)] });
    expect(await total()).toBe(2);
    await setup.database.db.execute(sql`DELETE FROM campaigns WHERE key = ${campaign.key}`);
    expect(await total()).toBe(1);
    await setup.database.db.execute(sql`TRUNCATE campaigns CASCADE`);
    expect(await total()).toBe(0);
  });
});
