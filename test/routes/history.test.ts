import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { entityTag } from '../../src/entity-tag.js';
import { claims } from '../../src/db/schema.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import type { CampaignHistory } from '../../src/schemas/history.js';
import { generateDataset } from '../../src/seed/dataset.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertClaim } from '../helpers/factories.js';
import { expectToMatchSchema } from '../helpers/schema.js';
import { expectRefusal } from '../helpers/refusal.js';

/**
 * GET /campaigns/{id}/history against a plain SQL aggregation over the claims table, for random
 * campaigns and windows, and while claims are written, revalued and removed.
 */
const NOW = new Date('2026-11-20T12:30:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Expected = Pick<CampaignHistory, 'from' | 'to' | 'buckets'>;

describe('GET /campaigns/{id}/history', () => {
  let database: TestDatabase;
  let app: App;
  let busy: { key: number; public_id: string }[];
  const rows = <Row>(query: ReturnType<typeof sql>) => queryRows<Row>(database.db, query);

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 60, claims: 3000, seed: 31, now: NOW }));
    app = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '0' }, undefined, { clock: () => NOW });
    busy = await rows(
      sql`SELECT c.key, c.public_id FROM campaigns AS c JOIN claims AS w ON w.campaign_key = c.key
           GROUP BY c.key ORDER BY count(*) DESC, c.key LIMIT 8`,
    );
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const history = async (id: string, query: string) => {
    const response = await app.inject(`/campaigns/${id}/history?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<CampaignHistory>();
    expectToMatchSchema(body, 'CampaignHistory');
    return body;
  };

  /** The buckets as plain SQL computes them: one aggregate per bucket and token, straight from claims. */
  const expected = async (key: number, from: Date, to: Date, step: number): Promise<Expected> => {
    const buckets = await rows<{
      start: string;
      claims: number;
      claimants: number;
      new_claimants: number;
      paid: [string, string, number][];
      left: [string, string][];
    }>(sql`
      WITH b AS (SELECT s AS start, s + ${step} * interval '1 millisecond' AS stop
                   FROM generate_series(${from}::timestamptz, ${to}::timestamptz - ${step} * interval '1 millisecond', ${step} * interval '1 millisecond') AS s),
           firsts AS (SELECT claimant, min(claimed_at) AS first_at FROM claims WHERE campaign_key = ${key} AND NOT draw GROUP BY claimant),
           tokens AS (SELECT DISTINCT asset_address AS token FROM incentives WHERE campaign_key = ${key} AND asset_address IS NOT NULL)
      SELECT to_char(b.start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS start,
             (SELECT count(*)::integer FROM claims AS w WHERE w.campaign_key = ${key} AND NOT w.draw AND w.claimed_at >= b.start AND w.claimed_at < b.stop) AS claims,
             (SELECT count(DISTINCT w.claimant)::integer FROM claims AS w WHERE w.campaign_key = ${key} AND NOT w.draw AND w.claimed_at >= b.start AND w.claimed_at < b.stop) AS claimants,
             (SELECT count(*)::integer FROM firsts AS f WHERE f.first_at >= b.start AND f.first_at < b.stop) AS new_claimants,
             (SELECT coalesce(json_agg(json_build_array(t.token,
                       (SELECT coalesce(sum(w.amount), 0)::text FROM claims AS w JOIN incentives AS i ON i.campaign_key = w.campaign_key AND i.position = w.incentive_position
                         WHERE w.campaign_key = ${key} AND i.asset_address = t.token AND w.claimed_at >= b.start AND w.claimed_at < b.stop),
                       (SELECT coalesce(sum(w.usd_value), 0)::float8 FROM claims AS w JOIN incentives AS i ON i.campaign_key = w.campaign_key AND i.position = w.incentive_position
                         WHERE w.campaign_key = ${key} AND i.asset_address = t.token AND w.claimed_at >= b.start AND w.claimed_at < b.stop))
                     ORDER BY t.token), '[]') FROM tokens AS t) AS paid,
             (SELECT coalesce(json_agg(json_build_array(t.token,
                       (SELECT sum(greatest(i.total_budget - (SELECT coalesce(sum(w.amount), 0) FROM claims AS w
                                                              WHERE w.campaign_key = i.campaign_key AND w.incentive_position = i.position AND w.claimed_at < b.stop), 0))::text
                          FROM incentives AS i WHERE i.campaign_key = ${key} AND i.asset_address = t.token AND i.total_budget IS NOT NULL))
                     ORDER BY t.token), '[]')
                FROM tokens AS t WHERE EXISTS (SELECT 1 FROM incentives AS i WHERE i.campaign_key = ${key} AND i.asset_address = t.token AND i.total_budget IS NOT NULL)) AS left
        FROM b ORDER BY b.start`);
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      buckets: buckets.map((bucket) => ({
        start: bucket.start,
        claims: bucket.claims,
        claimants: bucket.claimants,
        newClaimants: bucket.new_claimants,
        paid: bucket.paid.map(([token, amount, usd]) => ({ token, amount, usd })),
        budgetLeft: bucket.left.map(([token, amount]) => ({ token, amount })),
      })),
    };
  };

  /** The answer with its tokens in address order and USD rounded, as the SQL gives them. */
  const comparable = (body: CampaignHistory): Expected => ({
    from: body.from,
    to: body.to,
    buckets: body.buckets.map((bucket) => ({
      ...bucket,
      paid: [...bucket.paid].sort((a, b) => a.token.localeCompare(b.token)).map((paid) => ({ ...paid, usd: round(paid.usd) })),
      budgetLeft: [...bucket.budgetLeft].sort((a, b) => a.token.localeCompare(b.token)),
    })),
  });
  const rounded = (value: Expected): Expected => ({
    ...value,
    buckets: value.buckets.map((bucket) => ({ ...bucket, paid: bucket.paid.map((paid) => ({ ...paid, usd: round(paid.usd) })) })),
  });
  const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

  it('equals the plain aggregation for random campaigns and windows, by hour and by day, empty buckets with zeros', async () => {
    let random = 7;
    const next = (below: number) => (random = (random * 48271) % 2147483647) % below;
    for (const campaign of busy) {
      const hours = 1 + next(200);
      const fromHour = next(24 * 40);
      const from = new Date(Math.floor((NOW.getTime() - fromHour * HOUR) / HOUR) * HOUR);
      const to = new Date(from.getTime() + hours * HOUR);
      const body = await history(campaign.public_id, `interval=hour&from=${from.toISOString()}&to=${new Date(to.getTime() - 1).toISOString()}`);
      expect(comparable(body)).toEqual(rounded(await expected(campaign.key, from, to, HOUR)));
      expect(body.buckets).toHaveLength(hours);

      const days = 1 + next(60);
      const fromDay = new Date(Math.floor((NOW.getTime() - next(90) * DAY) / DAY) * DAY);
      const byDay = await history(campaign.public_id, `from=${fromDay.toISOString().slice(0, 10)}&to=${new Date(fromDay.getTime() + (days - 1) * DAY + 5 * HOUR).toISOString()}`);
      expect(comparable(byDay)).toEqual(rounded(await expected(campaign.key, fromDay, new Date(fromDay.getTime() + days * DAY), DAY)));
    }
    const quiet = await history(busy[0]!.public_id, 'interval=hour&from=2020-01-01T00:00:00Z&to=2020-01-01T05:00:00Z');
    expect(quiet.buckets.map((bucket) => [bucket.claims, bucket.claimants, bucket.newClaimants])).toEqual(Array(6).fill([0, 0, 0]));
    expect(quiet.buckets.every((bucket) => bucket.paid.every((paid) => paid.amount === '0' && paid.usd === 0))).toBe(true);
  });

  it('defaults to the last 30 days, the one holding now included, and projects from the 168 whole hours before the current one', async () => {
    const campaign = busy[1]!;
    const burnTo = Math.floor(NOW.getTime() / HOUR) * HOUR;
    const body = await history(campaign.public_id, '');
    expect(body.interval).toBe('day');
    expect(body.buckets).toHaveLength(30);
    expect(body.to).toBe('2026-11-21T00:00:00.000Z');
    expect(body.from).toBe('2026-10-22T00:00:00.000Z');
    const [projected] = await rows<{ left: string; burned: string }>(sql`
      SELECT sum(greatest(i.total_budget - i.total_amount_claimed, 0))::text AS left,
             (SELECT coalesce(sum(w.amount), 0)::text FROM claims AS w JOIN incentives AS j ON j.campaign_key = w.campaign_key AND j.position = w.incentive_position
               WHERE w.campaign_key = ${campaign.key} AND j.asset_address = ${body.projection.tokens[0]?.token ?? ''} AND j.total_budget IS NOT NULL
                 AND w.claimed_at >= ${new Date(burnTo - 7 * DAY)} AND w.claimed_at < ${new Date(burnTo)}) AS burned
        FROM incentives AS i WHERE i.campaign_key = ${campaign.key} AND i.asset_address = ${body.projection.tokens[0]?.token ?? ''} AND i.total_budget IS NOT NULL`);
    const token = body.projection.tokens[0];
    if (token) {
      expect(token.left).toBe(projected!.left);
      expect(token.paidPerDay).toBe((BigInt(projected!.burned) / 7n).toString());
      if (BigInt(projected!.burned) > 0n && BigInt(projected!.left) > 0n) {
        expect(Date.parse(token.exhaustsAt!)).toBe(NOW.getTime() + Number((BigInt(projected!.left) * BigInt(7 * DAY)) / BigInt(projected!.burned)));
      } else {
        expect(token.exhaustsAt).toBeNull();
      }
    }
  });

  it('is exact while claims are written at once with a read, and after a late price and a removed claim', async () => {
    const campaign = busy[2]!;
    const window = `interval=hour&from=${new Date(NOW.getTime() - 48 * HOUR).toISOString()}&to=${NOW.toISOString()}`;
    const from = new Date(Math.floor((NOW.getTime() - 48 * HOUR) / HOUR) * HOUR);
    const to = new Date(Math.floor(NOW.getTime() / HOUR) * HOUR + HOUR);
    const [incentive] = await rows<{ position: number }>(sql`SELECT position FROM incentives WHERE campaign_key = ${campaign.key} AND asset_address IS NOT NULL ORDER BY position LIMIT 1`);
    for (let round = 0; round < 4; round += 1) {
      const before = rounded(await expected(campaign.key, from, to, HOUR));
      const [body] = await Promise.all([
        history(campaign.public_id, window),
        // Three claims in one transaction, committed while the read runs.
        database.db.transaction(async (tx) => {
          for (let n = 0; n < 3; n += 1) {
            await insertClaim(tx, {
              campaignKey: campaign.key,
              incentivePosition: incentive!.position,
              claimedAt: new Date(NOW.getTime() - (n * 7 + round) * HOUR),
              amount: '1000',
              usdValue: '2.5',
            });
          }
        }),
      ]);
      const after = rounded(await expected(campaign.key, from, to, HOUR));
      // One snapshot: all of the concurrent claims or none of them.
      expect([before, after]).toContainEqual(comparable(body));
    }
    const [claim] = await rows<{ id: number }>(sql`SELECT id FROM claims WHERE campaign_key = ${campaign.key} AND claimed_at >= ${from} ORDER BY id DESC LIMIT 1`);
    await database.db.update(claims).set({ usdValue: '123.456' }).where(eq(claims.id, claim!.id));
    expect(comparable(await history(campaign.public_id, window))).toEqual(rounded(await expected(campaign.key, from, to, HOUR)));
    await database.db.delete(claims).where(eq(claims.id, claim!.id));
    expect(comparable(await history(campaign.public_id, window))).toEqual(rounded(await expected(campaign.key, from, to, HOUR)));
  });

  it('counts as new only a claimant whose first claim of the campaign is in the bucket', async () => {
    const campaign = busy[3]!;
    const claimant = '0x00000000000000000000000000000000000c1a1e';
    const at = (hours: number) => new Date(Math.floor(NOW.getTime() / HOUR) * HOUR - hours * HOUR + 60_000);
    await insertClaim(database.db, { campaignKey: campaign.key, claimant, claimedAt: at(30) });
    await insertClaim(database.db, { campaignKey: campaign.key, claimant, claimedAt: at(2) });
    const window = (hours: number) => `interval=hour&from=${at(hours).toISOString()}&to=${at(hours).toISOString()}`;
    const mine = async (hours: number) => {
      const before = (await history(campaign.public_id, window(hours))).buckets[0]!;
      return before.newClaimants;
    };
    const [firsts] = await rows<{ at30: number; at2: number }>(sql`
      SELECT count(*) FILTER (WHERE f.first_at >= ${new Date(at(30).getTime() - 60_000)} AND f.first_at < ${new Date(at(30).getTime() - 60_000 + HOUR)})::integer AS at30,
             count(*) FILTER (WHERE f.first_at >= ${new Date(at(2).getTime() - 60_000)} AND f.first_at < ${new Date(at(2).getTime() - 60_000 + HOUR)})::integer AS at2
        FROM (SELECT claimant, min(claimed_at) AS first_at FROM claims WHERE campaign_key = ${campaign.key} AND NOT draw GROUP BY claimant) AS f`);
    expect(await mine(30)).toBe(firsts!.at30);
    expect(await mine(2)).toBe(firsts!.at2);
    expect(firsts!.at30).toBeGreaterThanOrEqual(1);
  });

  it('serves a kept answer while nothing it shows changed, and builds it again after a claim, a late price, a budget or a token changes', async () => {
    const campaign = busy[4]!;
    const uncached = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '0', HISTORY_CACHE_MAX_MB: '0' }, undefined, { clock: () => NOW });
    try {
      const url = `/campaigns/${campaign.public_id}/history?interval=hour&from=${new Date(NOW.getTime() - 72 * HOUR).toISOString()}`;
      const [incentive] = await rows<{ position: number; asset_address: string }>(
        sql`SELECT position, asset_address FROM incentives
             WHERE campaign_key = ${campaign.key} AND asset_address IS NOT NULL AND total_budget IS NOT NULL ORDER BY position LIMIT 1`,
      );
      /** The answer with the cache, against one built afresh by an app that keeps nothing. */
      const same = async () => {
        const [kept, built] = await Promise.all([app.inject(url), uncached.inject(url)]);
        expect(kept.statusCode, kept.body).toBe(200);
        expect(kept.body).toBe(built.body);
        return kept.json<CampaignHistory>();
      };
      const reusedAfter = async (change: () => Promise<unknown>) => {
        await change();
        const before = app.historyCache.lookups;
        await same();
        const built = app.historyCache.lookups;
        expect(built.missed).toBe(before.missed + 1);
        await same();
        expect(app.historyCache.lookups.reused).toBe(built.reused + 1);
      };

      await reusedAfter(async () => undefined);
      await reusedAfter(() => insertClaim(database.db, { campaignKey: campaign.key, incentivePosition: incentive!.position, claimedAt: new Date(NOW.getTime() - 3 * HOUR), amount: '777' }));
      const [claim] = await rows<{ id: number }>(sql`SELECT id FROM claims WHERE campaign_key = ${campaign.key} ORDER BY id DESC LIMIT 1`);
      await reusedAfter(() => database.db.update(claims).set({ usdValue: '9.875' }).where(eq(claims.id, claim!.id)));
      // A top-up as the indexer writes it: the balance read from the chain.
      await reusedAfter(() =>
        rows(sql`UPDATE incentives SET balance = total_budget - total_amount_claimed + 5000 WHERE campaign_key = ${campaign.key} AND position = ${incentive!.position}`),
      );
      await reusedAfter(() => rows(sql`UPDATE tokens SET symbol = 'RENAMED' WHERE address = ${incentive!.asset_address}`));
      expect((await same()).tokens.map((token) => token.symbol)).toContain('RENAMED');
      await reusedAfter(() => database.db.delete(claims).where(eq(claims.id, claim!.id)));

      // A campaign without an entry version yet has nothing to keep an answer under: built every time.
      await rows(sql`DELETE FROM entry_versions WHERE campaign_key = ${campaign.key}`);
      const before = app.historyCache.lookups;
      await same();
      await same();
      expect(app.historyCache.lookups).toMatchObject({ missed: before.missed + 2, reused: before.reused });
      await rows(sql`SELECT bump_entry_versions(ARRAY[${campaign.key}]::integer[])`);
      await reusedAfter(async () => undefined);
    } finally {
      await uncached.close();
    }
  });

  it('counts the projection from the start of the request\'s second, so every answer of that second is the same', async () => {
    const campaign = busy[1]!;
    let now = NOW.getTime() + 1500;
    const later = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '0' }, undefined, { clock: () => new Date(now) });
    try {
      const url = `/campaigns/${campaign.public_id}/history`;
      const atNow = await history(campaign.public_id, '');
      const first = await later.inject(url);
      now += 400;
      const sameSecond = await later.inject(url);
      expect(sameSecond.body).toBe(first.body);
      expect(first.headers.etag).toBe(entityTag(first.rawPayload));
      expect((await later.inject({ url, headers: { 'if-none-match': String(first.headers.etag) } })).statusCode).toBe(304);
      const shifted = first.json<CampaignHistory>().projection;
      expect(shifted.tokens.length).toBeGreaterThan(0);
      expect(shifted.tokens.map((token) => token.exhaustsAt && Date.parse(token.exhaustsAt))).toEqual(
        atNow.projection.tokens.map((token) => token.exhaustsAt && Date.parse(token.exhaustsAt) + 1000),
      );
      now += 100;
      expect((await later.inject(url)).body).not.toBe(first.body);
    } finally {
      await later.close();
    }
  });

  it('refuses what it cannot answer, saying why', async () => {
    const id = busy[0]!.public_id;
    const refused = (url: string, status: number, message: RegExp) => expectRefusal(app, url, status, message);
    await refused(`/campaigns/${id}/history?interval=week`, 400, /interval/);
    await refused(`/campaigns/${id}/history?from=yesterday`, 400, /from must be a date/);
    await refused(`/campaigns/${id}/history?from=2026-02-30`, 400, /from is not a date that exists/);
    await refused(`/campaigns/${id}/history?to=2026-11-01T25:00:00Z`, 400, /to must be a date|to is not a date that exists/);
    await refused(`/campaigns/${id}/history?from=2026-11-02&to=2026-11-01`, 400, /from must not be after to/);
    await refused(`/campaigns/${id}/history?interval=hour&from=2026-01-01&to=2026-11-01`, 400, /at most 1000 buckets/);
    await refused(`/campaigns/${id}/history?days=3`, 400, /days/);
    await refused('/campaigns/8453:0x0000000000000000000000000000000000000001:1/history', 404, /not found/);
    await refused('/campaigns/8453:0xnope:1/history', 400, /id/);
    const ok = await app.inject(`/campaigns/${id}/history?interval=day&from=2024-03-01&to=2026-11-25`);
    expect(ok.statusCode).toBe(200);
    expect(ok.json<CampaignHistory>().buckets).toHaveLength(1000);
  });
});
