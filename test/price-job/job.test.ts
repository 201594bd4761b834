import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claims, tokenPrices } from '../../src/db/schema.js';
import { createPriceJob, type PriceJob, type PriceJobSettings } from '../../src/price-job/job.js';
import { PriceMetrics } from '../../src/price-job/metrics.js';
import { createDefiLlamaSource } from '../../src/prices/defillama.js';
import { type DefiLlamaStandIn, RawJson, startDefiLlamaStandIn } from '../../scripts/chain/defillama-stand-in.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { writeUnvaluedClaims } from '../helpers/unvalued-claims.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/**
 * The price job against the DefiLlama source and the local stand-in of DefiLlama's coins API (tests
 * never call the public API): current prices, the historical backfill of claims that wait for a price,
 * and every fault of the source, with the job's clock moved by hand so that backoffs are exact.
 */
const CHAIN = 8453;
const HOUR = 3_600_000;
const nowS = () => Date.now() / 1000;

describe('the price job', () => {
  let database: TestDatabase;
  let standIn: DefiLlamaStandIn;
  let asset: string;
  let campaign: { key: number; publicId: string };
  let logs: Array<{ msg: string; level: number } & Record<string, unknown>>;
  let clock: number;
  let registry: Registry;
  let job: PriceJob;

  const settings: PriceJobSettings = {
    pollMs: 60_000,
    hoursPerRound: 2,
    claimsPerLook: 1000,
    chains: [CHAIN],
    baseBackoffMs: 1000,
    maxBackoffMs: 60_000,
    maxRetryAfterMs: 120_000,
    retryHoursAfterMs: HOUR,
  };

  function newJob(overrides: Partial<PriceJobSettings> = {}, timeoutMs = 2000, now = () => clock, lock?: { tryHold(): Promise<boolean> }): PriceJob {
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as never) });
    registry = new Registry();
    return createPriceJob({
      database,
      sources: [createDefiLlamaSource({ baseUrl: standIn.url, timeoutMs, maxTokensPerRequest: 10, logger })],
      settings: { ...settings, ...overrides },
      logger,
      metrics: new PriceMetrics(registry),
      now,
      random: () => 1,
      lock,
    });
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ address: asset } = await insertToken(database.db, { chainId: CHAIN, decimals: 6, priceUsd: null }));
    campaign = await insertCampaign(database.db, { chainId: CHAIN, incentives: [erc20Incentive(asset, '1000000', '1000')] });
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    logs = [];
    clock = Date.now();
    standIn = await startDefiLlamaStandIn();
    await database.db.delete(claims);
    await database.db.delete(tokenPrices);
    job = newJob();
  });
  afterEach(async () => {
    await job.close();
    await standIn.close();
  });

  /** Claims as the indexer writes them: without values. */
  const writeClaims = (times: Date[], amount = '2000000') =>
    writeUnvaluedClaims(database, CHAIN, campaign.publicId, times.map((at) => ({ amount, at })));
  const stored = () =>
    queryRows<{ usd: string; eth: string; pending: boolean }>(
      database.db,
      sql`SELECT usd_value::text AS usd, eth_value_wei::text AS eth, value_pending AS pending FROM claims ORDER BY claimed_at`,
    );
  const currentPrice = async () =>
    (await queryRows<{ price: string | null; source: string }>(database.db, sql`SELECT price_usd::text AS price, price_source AS source FROM tokens WHERE address = ${asset}`))[0];
  /** The asset and ETH each priced at the given unix seconds. */
  function prices(points: { at: number; usd: number; eth: number }[]): void {
    for (const point of points) {
      standIn.setPrice(`base:${asset}`, { at: point.at, price: point.usd, decimals: 6, symbol: 'TK' });
      standIn.setPrice('coingecko:ethereum', { at: point.at, price: point.eth, symbol: 'ETH' });
    }
  }

  it('writes current prices of the known tokens and the native token, and the token’s current price follows', async () => {
    prices([{ at: Math.floor(nowS()) - 30, usd: 1.25, eth: 3000 }]);
    const round = await job.runOnce();
    expect(round).toMatchObject({ written: 2, refused: 0, failed: [] });
    expect(standIn.requests[0]?.endpoint).toBe('current');
    expect(standIn.requests[0]?.coins).toEqual(expect.arrayContaining([`base:${asset}`, 'coingecko:ethereum']));
    expect(await currentPrice()).toEqual({ price: '1.250000000000000000', source: 'defillama' });

    // Not asked again before PRICE_POLL_MS.
    await job.runOnce();
    expect(standIn.requests.filter((request) => request.endpoint === 'current')).toHaveLength(1);
    clock += settings.pollMs;
    await job.runOnce();
    expect(standIn.requests.filter((request) => request.endpoint === 'current')).toHaveLength(2);

    const metrics = await registry.metrics();
    expect(metrics).toMatch(new RegExp(`price_newest_age_seconds\\{chain_id="${CHAIN}",token="${asset}"\\} \\d`));
    expect(metrics).toMatch(/price_quotes_written_total\{source="defillama"\} 2/);
  });

  it('backfills the claims waiting for a price from historical prices from before their hour’s earliest claim, newest hour first', async () => {
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;
    const hours = [0, 1, 2].map((n) => hourStart + n * HOUR);
    // Two claims in each of three hours, two days ago: no price yet.
    await writeClaims(hours.flatMap((start) => [new Date(start + 5 * 60_000), new Date(start + 50 * 60_000)]));
    expect((await stored()).every((claim) => claim.pending)).toBe(true);
    // The history at five-minute steps, the asset at 1 + hours/100, ETH at 2000.
    const points = [];
    for (let at = hourStart - 2 * HOUR; at < hourStart + 4 * HOUR; at += 5 * 60_000) points.push({ at: at / 1000, usd: 1 + (at - hourStart) / HOUR / 100, eth: 2000 });
    prices(points);

    const first = await job.runOnce();
    // Two hours a round: the newest two now, the third next round.
    expect(first).toMatchObject({ failed: [], moreWaiting: true });
    const asked = standIn.requests.filter((request) => request.endpoint === 'historical').map((request) => request.timestamp! * 1000);
    // A quarter of an hour before each hour's earliest claim (five minutes into it).
    const askedAt = hours.map((start) => start + 5 * 60_000 - 15 * 60_000);
    expect(asked).toEqual([askedAt[2], askedAt[1]]);
    const second = await job.runOnce();
    expect(second).toMatchObject({ moreWaiting: false });
    expect(first.valued + second.valued).toBe(6);

    // Each claim: 2 tokens at the newest price asked for that is not after it; ETH at 2000.
    const expected = hours
      .flatMap((start) => [start + 5 * 60_000, start + 50 * 60_000])
      .map((claimedAt) => {
        const priceAt = Math.max(...askedAt.filter((at) => at <= claimedAt));
        // Truncated to micro-USD, as claim_value() does.
        const usd = (Math.floor(2 * (1 + (priceAt - hourStart) / HOUR / 100) * 1e6) / 1e6).toFixed(6);
        const eth = String((BigInt(Math.round(Number(usd) * 1e6)) * 10n ** 12n) / 2000n);
        return { usd, eth, pending: false };
      });
    expect(await stored()).toEqual(expected);
    // The totals equal the claims.
    const [totals] = await queryRows<{ stored: string; summed: string }>(
      database.db,
      sql`SELECT (SELECT total_usd_claimed::text FROM incentives WHERE campaign_key = ${campaign.key}) AS stored,
                 (SELECT sum(usd_value)::text FROM claims WHERE campaign_key = ${campaign.key}) AS summed`,
    );
    expect(totals!.stored).toBe(totals!.summed);
    expect(await registry.metrics()).toMatch(/price_claims_waiting 0/);
  });

  it('looks through a bounded number of waiting claims a round, further back each round, then from the newest again', async () => {
    job = newJob({ claimsPerLook: 3, hoursPerRound: 20 });
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 10 * HOUR;
    // Two claims in each of four hours; no source has a price for them.
    await writeClaims([0, 1, 2, 3].flatMap((n) => [new Date(hourStart + n * HOUR + 60_000), new Date(hourStart + n * HOUR + 120_000)]));
    const askedHours = () =>
      standIn.requests.filter((request) => request.endpoint === 'historical').map((request) => Math.floor((request.timestamp! * 1000 + 15 * 60_000 - hourStart) / HOUR));
    // Three claims a look: hours 3 and part of 2; 2 again (asked already) and part of 1; 1 and part
    // of 0; the rest of 0. Each hour is asked about once.
    for (const more of [true, true, true, false]) expect(await job.runOnce()).toMatchObject({ moreWaiting: more });
    expect(askedHours()).toEqual([3, 2, 1, 0]);
    // From the newest again: every hour asked a moment ago is left for later.
    await job.runOnce();
    expect(askedHours()).toEqual([3, 2, 1, 0]);
  });

  it('asks about an hour no source prices again only after a while, doubling', async () => {
    await writeClaims([new Date(Date.now() - 3 * HOUR)]);
    await job.runOnce();
    await job.runOnce();
    const historical = () => standIn.requests.filter((request) => request.endpoint === 'historical').length;
    expect(historical()).toBe(1);
    clock += HOUR;
    await job.runOnce();
    expect(historical()).toBe(2);
    clock += HOUR;
    await job.runOnce();
    expect(historical()).toBe(2);
    clock += HOUR;
    await job.runOnce();
    expect(historical()).toBe(3);
    expect(await registry.metrics()).toMatch(/price_claims_waiting 1/);
  });

  it('waits out a 429 for its Retry-After (capped), while claims keep being written, and values them afterwards', async () => {
    prices([{ at: Math.floor(nowS()) - 600, usd: 2, eth: 4000 }]);
    standIn.setFault({ kind: 'status', status: 429, retryAfter: '30' });
    expect((await job.runOnce()).failed).toEqual(['defillama']);
    await writeClaims([new Date(Date.now() - 60_000)]);
    expect(await stored()).toEqual([{ usd: '0.000000', eth: '0', pending: true }]);

    standIn.setFault(null);
    const asked = standIn.requests.length;
    clock += 29_000;
    await job.runOnce();
    expect(standIn.requests.length).toBe(asked);
    clock += 1_000;
    await job.runOnce();
    expect(await stored()).toEqual([{ usd: '4.000000', eth: '1000000000000000', pending: false }]);
    expect(await registry.metrics()).toMatch(/price_source_errors_total\{source="defillama",kind="rate-limited"\} 1/);

    // A Retry-After of a day waits maxRetryAfterMs.
    standIn.setFault({ kind: 'status', status: 429, retryAfter: '86400' });
    clock += settings.pollMs;
    await job.runOnce();
    standIn.setFault(null);
    const before = standIn.requests.length;
    clock += settings.maxRetryAfterMs - 1;
    await job.runOnce();
    expect(standIn.requests.length).toBe(before);
    clock += 1;
    await job.runOnce();
    expect(standIn.requests.length).toBeGreaterThan(before);
  });

  it.each([
    ['down (5xx)', { kind: 'status', status: 503 } as const, 'unavailable'],
    ['answering garbage', { kind: 'garbage', body: '<html>maintenance</html>' } as const, 'bad-answer'],
    ['resetting connections', { kind: 'reset' } as const, 'unavailable'],
    ['slow beyond the timeout', { kind: 'slow', delayMs: 1500 } as const, 'unavailable'],
  ])('backs off exponentially from a source %s, then fills the values in', async (_name, fault, kind) => {
    job = newJob({}, 500);
    prices([{ at: Math.floor(nowS()) - 600, usd: 3, eth: 3000 }]);
    await writeClaims([new Date(Date.now() - 60_000)]);
    standIn.setFault(fault);
    // Backoffs of 1 s, 2 s, 4 s (random() = 1: the full delay).
    for (const waitMs of [1000, 2000, 4000]) {
      expect((await job.runOnce()).failed).toEqual(['defillama']);
      const asked = standIn.requests.length;
      clock += waitMs - 1;
      await job.runOnce();
      expect(standIn.requests.length).toBe(asked);
      clock += 1;
    }
    standIn.setFault(null);
    expect((await job.runOnce()).failed).toEqual([]);
    expect(await stored()).toEqual([{ usd: '6.000000', eth: '2000000000000000', pending: false }]);
    expect(await registry.metrics()).toMatch(new RegExp(`price_source_errors_total\\{source="defillama",kind="${kind}"\\} 3`));
  });

  it('refuses and logs a price that is negative, not finite, or jumps beyond the bound; none is served', async () => {
    let at = Math.floor(nowS()) - 600;
    standIn.setPrice(`base:${asset}`, { at: at - 1200, price: 2 });
    await job.runOnce();
    expect((await currentPrice())?.price).toBe('2.000000000000000000');

    for (const price of [-1, new RawJson('1e400'), 50]) {
      standIn.setPrice(`base:${asset}`, { at: (at += 60), price });
      clock += settings.pollMs;
      await job.runOnce();
    }
    expect((await currentPrice())?.price).toBe('2.000000000000000000');
    const history = await queryRows<{ price: string }>(database.db, sql`SELECT price_usd::text AS price FROM token_prices WHERE address = ${asset}`);
    expect(history.map((row) => Number(row.price))).toEqual([2]);
    const refusals = logs.filter((line) => line.msg === 'price refused');
    // The source refuses -1 and 1e400 itself; the write path refuses the 25x jump.
    expect(refusals).toHaveLength(3);
    expect(String(refusals[2]!.reason)).toMatch(/more than 5x away from 2/);
    // The two the source refused count too.
    expect(await registry.metrics()).toMatch(/price_quotes_refused_total\{source="defillama"\} 3/);
  });

  it.each([
    ['negative', -2],
    ['zero', 0],
  ])('asks about an hour again at the next pass after the source answered a %s price for it (doubling while it does), and values its claims then', async (_name, wrong) => {
    // Beyond the stand-in's six hours of search width from now: the current prices do not see these points.
    const hour = Math.floor(Date.now() / HOUR) * HOUR - 10 * HOUR;
    const claimedAt = [new Date(hour + 20 * 60_000), new Date(hour + 30 * 60_000), new Date(hour + 40 * 60_000)];
    const askedAt = (claimedAt[0]!.getTime() - 15 * 60_000) / 1000;
    standIn.setPrice(`base:${asset}`, { at: askedAt - 60, price: wrong });
    standIn.setPrice('coingecko:ethereum', { at: askedAt, price: 4000 });
    await writeClaims(claimedAt);
    const historical = () => standIn.requests.filter((request) => request.endpoint === 'historical');

    expect(await job.runOnce()).toMatchObject({ refused: 1, valued: 0, failed: [] });
    expect(historical()).toHaveLength(1);
    expect((await stored()).every((claim) => claim.pending)).toBe(true);
    expect(await registry.metrics()).toMatch(/price_quotes_refused_total\{source="defillama"\} 1/);
    // Asked again at the next pass, not before: refused again, the wait doubles (two passes).
    await job.runOnce();
    expect(historical()).toHaveLength(1);
    clock += settings.pollMs;
    expect(await job.runOnce()).toMatchObject({ refused: 1, valued: 0 });
    expect(historical()).toHaveLength(2);
    clock += settings.pollMs;
    await job.runOnce();
    expect(historical()).toHaveLength(2);

    // The source answers right again (a price nearer the time asked): the claims are valued at the
    // pass that asks next, not an hour later.
    standIn.setPrice(`base:${asset}`, { at: askedAt, price: 2 });
    clock += settings.pollMs;
    expect(await job.runOnce()).toMatchObject({ refused: 0, valued: 3, failed: [] });
    expect(historical().map((request) => request.timestamp)).toEqual([askedAt, askedAt, askedAt]);
    expect(await stored()).toEqual(claimedAt.map(() => ({ usd: '4.000000', eth: '1000000000000000', pending: false })));
    expect(await registry.metrics()).toMatch(/price_quotes_refused_total\{source="defillama"\} 2/);
  });

  it('starts the next round early when woken (new claims), not after a whole poll interval', async () => {
    // A claim from before the current quote: only the historical price of its hour values it.
    const claimedAt = new Date(Date.now() - 20 * 60_000);
    const askedAt = (claimedAt.getTime() - 15 * 60_000) / 1000;
    prices([{ at: Math.floor(nowS()) - 10, usd: 2, eth: 4000 }, { at: askedAt, usd: 2, eth: 4000 }]);
    job = newJob({ pollMs: 600_000 }, 2000, Date.now);
    job.start();
    await expect.poll(currentPrice, { timeout: 5000 }).toMatchObject({ source: 'defillama' });
    await writeClaims([claimedAt]);
    expect((await stored())[0]?.pending).toBe(true);
    job.wake();
    await expect.poll(stored, { timeout: 5000 }).toEqual([{ usd: '4.000000', eth: '1000000000000000', pending: false }]);
  });

  it("prepares a range's claims: their hours' prices first, so they are valued as they are written", async () => {
    // Two claims in one hour, one in the next.
    const hour = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
    const claimedAt = [new Date(hour + 300_000), new Date(hour + 900_000), new Date(hour + HOUR + 300_000)];
    for (const at of claimedAt) prices([{ at: (at.getTime() - 15 * 60_000) / 1000, usd: 2, eth: 4000 }]);
    await job.prepare(CHAIN, { times: claimedAt, assets: [asset.toUpperCase().replace('0X', '0x')] });
    // One request per hour, at a quarter of an hour before its earliest claim, for the assets and ether.
    const asked = standIn.requests.filter((request) => request.endpoint === 'historical');
    expect(asked.map((request) => request.timestamp! * 1000)).toEqual([claimedAt[0]!.getTime() - 15 * 60_000, claimedAt[2]!.getTime() - 15 * 60_000]);
    expect(asked[0]?.coins.sort()).toEqual([`base:${asset}`, 'coingecko:ethereum'].sort());
    await writeClaims(claimedAt);
    expect((await stored()).every((claim) => !claim.pending)).toBe(true);
    // The same hours again, for later claims: nothing asked.
    await job.prepare(CHAIN, { times: [new Date(claimedAt[2]!.getTime() + 60_000)], assets: [asset] });
    expect(standIn.requests.filter((request) => request.endpoint === 'historical')).toHaveLength(2);
  });

  it('prepares nothing, and throws nothing, when the source fails: the claims wait, the source backs off', async () => {
    standIn.setFault({ kind: 'status', status: 503 });
    await expect(job.prepare(CHAIN, { times: [new Date(Date.now() - HOUR)], assets: [asset] })).resolves.toBeUndefined();
    expect(await registry.metrics()).toMatch(/price_source_errors_total\{source="defillama",kind="unavailable"\} 1/);
    // Backing off: the next range is not held up by another request.
    const asked = standIn.requests.length;
    await job.prepare(CHAIN, { times: [new Date(Date.now() - HOUR)], assets: [asset] });
    expect(standIn.requests.length).toBe(asked);
  });

  it('runs no round while another process holds its lock, and takes over once it is free; prepare() does not wait for it', async () => {
    prices([{ at: Math.floor(nowS()) - 30, usd: 1.5, eth: 3000 }]);
    let free = false;
    let tries = 0;
    job = newJob({ pollMs: 10 }, 2000, Date.now, {
      tryHold: async () => {
        tries += 1;
        return free;
      },
    });
    expect(job.state()).toEqual({ phase: 'starting', lastRoundAt: null });
    job.start();
    await expect.poll(() => tries, { timeout: 5000 }).toBeGreaterThan(3);
    expect(job.state().phase).toBe('standing-by');
    expect(standIn.requests).toEqual([]);
    expect(logs.filter((line) => line.msg.startsWith('another process runs the price job'))).toHaveLength(1);
    await job.prepare(CHAIN, { times: [new Date(Date.now() - HOUR)], assets: [asset] });
    expect(standIn.requests.map((request) => request.endpoint)).toEqual(['historical']);

    free = true;
    await expect.poll(currentPrice, { timeout: 5000 }).toEqual({ price: '1.500000000000000000', source: 'defillama' });
    // The price is committed inside the round; the phase follows at the round's end.
    await expect.poll(() => job.state().phase, { timeout: 5000 }).toBe('running');
    expect(logs.map((line) => line.msg)).toContain('price job taking over: the process that ran it stopped');
  });

  it('is failing while its lock cannot be asked for (the database is down), and says so', async () => {
    job = newJob({ pollMs: 10 }, 2000, Date.now, { tryHold: () => Promise.reject(new Error('connect ECONNREFUSED')) });
    job.start();
    await expect.poll(() => job.state().phase, { timeout: 5000 }).toBe('failing');
    expect(logs.find((line) => line.msg === 'price round failed')).toMatchObject({ err: { message: 'connect ECONNREFUSED' } });
  });

  it('runs rounds by itself once started, and close() stops it', async () => {
    prices([{ at: Math.floor(nowS()) - 30, usd: 1.5, eth: 3000 }]);
    job = newJob({ pollMs: 10 }, 2000, Date.now);
    job.start();
    await expect.poll(currentPrice, { timeout: 5000 }).toEqual({ price: '1.500000000000000000', source: 'defillama' });
    await job.close();
    // A request the close aborted may still reach the stand-in after it was sent: let it land first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const asked = standIn.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(standIn.requests.length).toBe(asked);
  });
});
