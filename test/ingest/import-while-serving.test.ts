import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { importNdjson } from '../../src/ingest/ndjson-source.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address } from '../helpers/factories.js';
import { baseRecords, CAMPAIGN_ID, campaignRecord, claimRecord, hash, lines } from '../helpers/records.js';

/**
 * The API keeps answering while an import runs, and never shows part of it: the count of
 * campaigns is the one before or the one after, and every campaign has all of its incentives.
 */
const NEW_CAMPAIGNS = 300;

describe('an import while the server serves', () => {
  let database: TestDatabase;
  let app: App;
  beforeAll(async () => {
    database = await createTestDatabase();
    await importNdjson(database, Readable.from([lines(baseRecords())]));
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('never shows a partial campaign or a partial file', async () => {
    const incentive = (n: number) => ({ type: 'ERC20Incentive', params: { asset: address(0x70001), strategy: 0, reward: String(n), limit: '10' } });
    const records: unknown[] = [
      // An existing campaign goes from two incentives to three.
      campaignRecord('1', { incentives: [incentive(1), incentive(2), incentive(3)] }),
    ];
    for (let n = 0; n < NEW_CAMPAIGNS; n++) {
      const identifier = String(1000 + n);
      records.push(campaignRecord(identifier, { incentives: [incentive(1), incentive(2), incentive(3)], txHash: hash('c2') }));
      records.push(claimRecord(n, { campaign: CAMPAIGN_ID.replace(/:1$/, `:${identifier}`), txHash: hash('22') }));
    }
    const importing = importNdjson(database, Readable.from([lines(records)]));
    let done = false;
    void importing.finally(() => {
      done = true;
    });

    const seen = new Set<number>();
    let readsDuringImport = 0;
    const lastId = `${CAMPAIGN_ID.replace(/:1$/, `:${1000 + NEW_CAMPAIGNS - 1}`)}`;
    do {
      const inFlight = !done;
      const [list, detail] = await Promise.all([
        app.inject({ url: '/campaigns?tokenWhitelist=false&pageSize=100' }),
        app.inject({ url: `/campaigns/${lastId}` }),
      ]);
      expect(list.statusCode).toBe(200);
      const body = list.json<{ totalCampaigns: number; campaigns: { id: string; incentiveCount: string; incentives: unknown[] }[] }>();
      seen.add(body.totalCampaigns);
      // A page and its total are two statements, which may fall either side of the commit; each
      // campaign is one document, which must be wholly before (two incentives) or after (three).
      for (const campaign of body.campaigns) {
        expect(campaign.id === CAMPAIGN_ID ? [2, 3] : [3]).toContain(campaign.incentives.length);
        expect(campaign.incentiveCount).toBe(String(campaign.incentives.length));
      }
      if (detail.statusCode === 200) {
        expect(detail.json<{ incentives: unknown[] }>().incentives).toHaveLength(3);
      } else {
        expect(detail.statusCode).toBe(404);
      }
      if (inFlight) readsDuringImport++;
    } while (!done);
    await importing;

    expect(readsDuringImport).toBeGreaterThan(0);
    for (const total of seen) expect([1, 1 + NEW_CAMPAIGNS]).toContain(total);
    const after = (await app.inject({ url: '/campaigns?tokenWhitelist=false&pageSize=0' })).json<{ totalCampaigns: number }>();
    expect(after.totalCampaigns).toBe(1 + NEW_CAMPAIGNS);
  });
});
