import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.js';
import { queryRows } from '../src/db/client.js';
import { type DemoClaimWrite, DemoLiveWriter } from '../src/demo-live.js';
import { writeDataset } from '../src/ingest/bulk-load.js';
import { createEventsRepository } from '../src/repositories/events.repository.js';
import { DEFAULT_SEED, generateDataset } from '../src/seed/dataset.js';
import { buildTestApp } from './helpers/app.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

/**
 * The live side of the zero-setup demo: each tick writes one claim on the demo data, which the
 * event log records as claim.written and which moves its campaign's totals; close() stops the ticks
 * and waits for the write in flight; a write that fails is logged, and the next tick tries again.
 */

/** A logger that keeps what it is told. */
function recordingLogger() {
  const lines: { level: 'info' | 'warn' | 'debug'; msg: string }[] = [];
  const at =
    (level: 'info' | 'warn' | 'debug') =>
    (first: unknown, second?: string) => {
      lines.push({ level, msg: typeof first === 'string' ? first : (second ?? '') });
    };
  return { lines, logger: { info: at('info'), warn: at('warn'), debug: at('debug') } };
}

async function until(probe: () => Promise<boolean> | boolean, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const generatedAt = new Date('2025-03-10T12:00:00.000Z');

describe('DemoLiveWriter on the demo data', () => {
  let database: TestDatabase;
  let app: App;
  const claimCount = async () => Number((await queryRows<{ n: string }>(database.db, sql`SELECT count(*) AS n FROM claims`))[0]!.n);
  const totalClaims = async () => Number((await queryRows<{ n: string }>(database.db, sql`SELECT sum(total_claims) AS n FROM incentives`))[0]!.n);

  beforeAll(async () => {
    database = await createTestDatabase();
    await writeDataset(database, generateDataset({ campaigns: 30, claims: 400, seed: DEFAULT_SEED, now: generatedAt }));
    app = await buildTestApp(database, {}, undefined, { clock: () => new Date(generatedAt.getTime() + 60_000) });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('writes a claim at each tick: a claims row, a claim.written event, and the campaign totals move', async () => {
    const now = new Date(generatedAt.getTime() + 60_000);
    const { logger } = recordingLogger();
    const writer = new DemoLiveWriter({ database, logger, intervalMs: 3_600_000, clock: () => now });
    const events = createEventsRepository(database.db);
    const head = await events.head();
    const before = await claimCount();
    const totalsBefore = await totalClaims();

    await writer.tick();

    const [claim] = await queryRows<{ tx_hash: string; claimed_at: Date | string; campaign_id: string; incentive_position: number }>(
      database.db,
      sql`SELECT cl.tx_hash, cl.claimed_at, c.public_id AS campaign_id, cl.incentive_position
            FROM claims AS cl JOIN campaigns AS c ON c.key = cl.campaign_key ORDER BY cl.id DESC LIMIT 1`,
    );
    expect(await claimCount()).toBe(before + 1);
    expect(new Date(claim!.claimed_at).toISOString()).toBe(now.toISOString());
    const written = (await events.after({ seq: head.seq, id: Number.MAX_SAFE_INTEGER }, 100)).filter((event) => event.type === 'claim.written');
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0]!.data)).toMatchObject({ txHash: claim!.tx_hash, campaignId: claim!.campaign_id, valuePending: false });

    // The campaign's totals count it, and its activity, as the API shows it, starts with it.
    expect(await totalClaims()).toBe(totalsBefore + 1);
    const activity = (await app.inject(`/campaigns/${claim!.campaign_id}/activity`)).json<{ activityEvents: { txHash: string }[] }>();
    expect(activity.activityEvents[0]!.txHash).toBe(claim!.tx_hash);
  });

  it('writes every interval once started, and nothing after close()', async () => {
    const { logger } = recordingLogger();
    const writer = new DemoLiveWriter({ database, logger, intervalMs: 20, clock: () => new Date(generatedAt.getTime() + 120_000) });
    const before = await claimCount();
    writer.start();
    await until(async () => (await claimCount()) >= before + 3);
    await writer.close();
    const atClose = await claimCount();
    // Several intervals later, still the same: the ticks stopped with close().
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await claimCount()).toBe(atClose);
  });

  it('close() waits for the write in flight', async () => {
    const { logger } = recordingLogger();
    let finish: () => void = () => undefined;
    const writer = new DemoLiveWriter({
      database,
      logger,
      intervalMs: 3_600_000,
      write: () => new Promise((resolve) => (finish = () => resolve(undefined))),
    });
    void writer.tick();
    let closed = false;
    const closing = writer.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(closed).toBe(true);
  });

  it('logs a failed write once, does not throw, and keeps ticking until a write succeeds', async () => {
    const { lines, logger } = recordingLogger();
    let calls = 0;
    const write: DemoClaimWrite = async () => {
      calls += 1;
      if (calls <= 3) throw new Error('database unavailable');
      return { campaign: '1:0x0000000000000000000000000000000000000001:1', txHash: `0x${'1'.repeat(64)}` };
    };
    const writer = new DemoLiveWriter({ database, logger, intervalMs: 10, write });
    writer.start();
    await until(() => calls >= 4);
    await writer.close();
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.msg)).toEqual(['demo live claim not written; trying again at the next tick']);
    expect(lines.map((line) => line.msg)).toContain('demo live claims: writing again');
  });

  it('writes nothing, and says so once, when no demo campaign can take a claim', async () => {
    const empty = await createTestDatabase();
    try {
      const { lines, logger } = recordingLogger();
      const writer = new DemoLiveWriter({ database: empty, logger, intervalMs: 3_600_000 });
      await writer.tick();
      await writer.tick();
      const [{ n } = { n: '' }] = await queryRows<{ n: string }>(empty.db, sql`SELECT count(*) AS n FROM claims`);
      expect(n).toBe('0');
      expect(lines.filter((line) => line.level === 'info').map((line) => line.msg)).toEqual([
        'demo live claims: no demo campaign is active with budget left; none written',
      ]);
    } finally {
      await empty.close();
    }
  });
});
