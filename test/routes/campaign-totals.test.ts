import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/** Cached totals follow every kind of write, including the ones statement triggers of INSERT/UPDATE/DELETE miss. */
describe('GET /campaigns totals', () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const total = async () => (await app.inject('/campaigns')).json<{ totalCampaigns: number }>().totalCampaigns;

  it('follow inserts, deletes and a TRUNCATE', async () => {
    const token = await insertToken(database.db);
    const campaign = await insertCampaign(database.db, { incentives: [erc20Incentive(token.address)] });
    await insertCampaign(database.db, { incentives: [erc20Incentive(token.address)] });
    expect(await total()).toBe(2);
    await database.db.execute(sql`DELETE FROM campaigns WHERE key = ${campaign.key}`);
    expect(await total()).toBe(1);
    await database.db.execute(sql`TRUNCATE campaigns CASCADE`);
    expect(await total()).toBe(0);
  });
});
