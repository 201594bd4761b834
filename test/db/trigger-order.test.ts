import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertClaim, insertToken } from '../helpers/factories.js';

/**
 * The rule of src/db/sql/README.md, "What a write sets off": one statement trigger per consumer,
 * named `<table>_<n>_<consumer>_after_<event>`, fired in the order of their names, events last.
 */
const ORDER: Record<string, string[]> = {
  claims: ['claims_check', 'claims_totals', 'claims_volume_feed', 'claims_claimant_feed', 'claims_history', 'claims_events'],
  campaigns: ['campaigns_documents', 'campaigns_events'],
  incentives: ['incentives_documents', 'incentives_events'],
};

type TriggerRow = { table: string; name: string; fn: string; events: string[] };

describe('the order of the write triggers', () => {
  let database: TestDatabase;
  let triggers: TriggerRow[];

  beforeAll(async () => {
    database = await createTestDatabase();
    // The AFTER statement triggers (tgtype bits 1 ROW and 2 BEFORE unset); bits 4 INSERT, 8 DELETE,
    // 16 UPDATE, 32 TRUNCATE. Sorted as PostgreSQL fires them: by name, bytewise.
    triggers = await queryRows<TriggerRow>(
      database.db,
      sql`SELECT t.tgrelid::regclass::text AS "table", t.tgname AS name, p.proname AS fn,
                 array_remove(ARRAY[CASE WHEN t.tgtype & 4 > 0 THEN 'insert' END, CASE WHEN t.tgtype & 16 > 0 THEN 'update' END,
                                    CASE WHEN t.tgtype & 8 > 0 THEN 'delete' END, CASE WHEN t.tgtype & 32 > 0 THEN 'truncate' END], NULL) AS events
            FROM pg_trigger AS t JOIN pg_proc AS p ON p.oid = t.tgfoid
           WHERE NOT t.tgisinternal AND t.tgtype & 3 = 0 AND t.tgrelid::regclass::text IN ('claims', 'campaigns', 'incentives')
           ORDER BY t.tgname COLLATE "C"`,
    );
  });
  afterAll(() => database?.close());

  it('names each trigger <table>_<n>_<consumer>_after_<event>, with n its place in the documented order', () => {
    for (const trigger of triggers) {
      const order = ORDER[trigger.table];
      if (!order) throw new Error(`no documented order for ${trigger.table}`);
      const place = order.indexOf(trigger.fn) + 1;
      expect(place, `${trigger.name} executes ${trigger.fn}, which is not in the documented order`).toBeGreaterThan(0);
      const consumer = trigger.fn.slice(trigger.table.length + 1);
      expect(trigger.events).toHaveLength(1);
      expect(trigger.name).toBe(`${trigger.table}_${place}_${consumer}_after_${trigger.events[0]}`);
    }
  });

  it('fires, for every table and event, the documented functions in the documented order, events last', () => {
    for (const [table, order] of Object.entries(ORDER)) {
      for (const event of ['insert', 'update', 'delete', 'truncate']) {
        const fired = triggers.filter((t) => t.table === table && t.events.includes(event)).map((t) => t.fn);
        expect(fired, `${table} ${event}`).toEqual(order.filter((fn) => fired.includes(fn)));
        // Emptying campaigns sends no event of its own: its claims' TRUNCATE sends the refetch.
        if (fired.length > 0 && (table !== 'campaigns' || event !== 'truncate')) expect(fired.at(-1), `${table} ${event}`).toBe(`${table}_events`);
      }
    }
  });

  it('gives the event of a claim the totals that the claim left', async () => {
    const token = await insertToken(database.db, { priceUsd: '2' });
    const campaign = await insertCampaign(database.db, { incentives: [erc20Incentive(token.address, '10000000000000000000', '100')] });
    await insertClaim(database.db, { campaignKey: campaign.key, claimedAt: new Date(), amount: '250000000000000000000' });
    const [changed] = await queryRows<{ budget: string }>(
      database.db,
      sql`SELECT e.data ->> 'availableBudgetUsd' AS budget FROM events AS e
           WHERE e.type = 'campaign.changed' AND e.campaign_id = ${campaign.publicId} ORDER BY e.id DESC LIMIT 1`,
    );
    expect(changed?.budget).toBe('1500.00');
  });
});
