import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claims } from '../../src/db/schema.js';
import { importNdjson } from '../../src/ingest/ndjson-source.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertClaim } from '../helpers/factories.js';
import { baseRecords, lines } from '../helpers/records.js';

/**
 * The history tables (claim_hours, claimant_buckets, claimant_firsts), brought forward from the claim
 * changes by apply_claim_history(), always equal recompute_claim_history(), the same rows computed
 * whole from the claims: after every insert, move, repayment, revaluation and removal, one claim or
 * several at once, applied after each write or after several, and after concurrent writers of one
 * campaign's claimants, each in its own transaction, with an applier running meanwhile. And a read
 * (campaign_history()) never waits for the applier: what it has not applied, the read adds.
 */
const BASE = Date.parse('2026-11-20T22:00:00Z');
const HOUR = 3_600_000;
const claimantOf = (n: number) => `0x${(0xc1a1 + n).toString(16).padStart(40, '0')}`;

describe('claim history applied from the claim changes', () => {
  let database: TestDatabase;
  let campaignKeys: number[];
  let publicIds: string[];
  const rows = <Row>(query: ReturnType<typeof sql>) => queryRows<Row>(database.db, query);

  type Kept = { hours: string; buckets: string; firsts: string };
  const tables = (executor: Parameters<typeof queryRows>[0]) =>
    queryRows<Kept>(
      executor,
      sql`SELECT (SELECT coalesce(json_agg(json_build_array(campaign_key, hour, incentive_position, rows, claims, amount::text, usd::text)
                                           ORDER BY campaign_key, hour, incentive_position), '[]')::text FROM claim_hours) AS hours,
                 (SELECT coalesce(json_agg(json_build_array(campaign_key, unit, start, claimants, new_claimants)
                                           ORDER BY campaign_key, unit, start), '[]')::text FROM claimant_buckets) AS buckets,
                 (SELECT coalesce(json_agg(json_build_array(campaign_key, claimant, first_at) ORDER BY campaign_key, claimant), '[]')::text
                    FROM claimant_firsts) AS firsts`,
    ).then(([row]) => row!);
  /** What GET /campaigns/{id}/history is made of, for both campaigns, by hour and by day, over the hours the claims are in. */
  const answers = (executor: Parameters<typeof queryRows>[0]) =>
    queryRows<{ public_id: string; unit: string; incentives: string; paid: string; people: string }>(
      executor,
      sql`SELECT p.public_id, u.unit, h.*
            FROM unnest(ARRAY[${sql.join(publicIds.map((id) => sql`${id}`), sql`, `)}]::text[]) AS p(public_id) CROSS JOIN (VALUES ('hour'), ('day')) AS u(unit)
           CROSS JOIN LATERAL campaign_history(p.public_id, u.unit, ${new Date(BASE - 2 * 24 * HOUR)}, ${new Date(BASE + 3 * 24 * HOUR)},
                                               ${new Date(BASE + 2 * HOUR)}, ${new Date(BASE + 4 * HOUR)}) AS h
           ORDER BY 1, 2`,
    );
  /** The tables as the applier leaves them. */
  const kept = async () => {
    await database.db.execute(sql`SELECT apply_claim_history()`);
    return tables(database.db);
  };
  /** The tables, and the history answers, as a recompute from the claims gives them (rolled back). */
  const recomputed = async () => {
    let whole: { tables: Kept; answers: Awaited<ReturnType<typeof answers>> } | undefined;
    await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`SELECT recompute_claim_history()`);
        whole = { tables: await tables(tx), answers: await answers(tx) };
        tx.rollback();
      })
      .catch((error: Error) => {
        if (!/rollback/i.test(error.message)) throw error;
      });
    return whole!;
  };
  const expectKeptAsRecomputed = async (after: string) => {
    const [now, whole] = [await kept(), await recomputed()];
    expect(JSON.parse(now.hours), `claim_hours after ${after}`).toEqual(JSON.parse(whole.tables.hours));
    expect(JSON.parse(now.buckets), `claimant_buckets after ${after}`).toEqual(JSON.parse(whole.tables.buckets));
    expect(JSON.parse(now.firsts), `claimant_firsts after ${after}`).toEqual(JSON.parse(whole.tables.firsts));
  };
  /** The history answers before the applier has run equal those of a recompute. */
  const expectAnswersExact = async (after: string) => {
    const [pending, whole] = [await answers(database.db), await recomputed()];
    expect(pending, `campaign_history() with the changes not applied, after ${after}`).toEqual(whole.answers);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    campaignKeys = [];
    publicIds = [];
    for (let n = 0; n < 2; n++) {
      const campaign = await insertCampaign(database.db, { incentives: [erc20Incentive(claimantOf(900 + n)), erc20Incentive(claimantOf(950 + n))] });
      campaignKeys.push(campaign.key);
      publicIds.push(campaign.publicId);
    }
  });
  afterAll(() => database?.close());

  type Operation =
    | { kind: 'insert'; claims: { campaign: number; position: number; claimant: number; hour: number; minute: number; draw: boolean; usd: number }[] }
    | { kind: 'move'; pick: number; claimant: number; hour: number; draw: boolean }
    | { kind: 'repay'; pick: number; position: number; amount: number }
    | { kind: 'revalue'; campaign: number; factor: number }
    | { kind: 'remove'; picks: number[] };

  const newClaim = fc.record({
    campaign: fc.integer({ min: 0, max: 1 }),
    position: fc.integer({ min: 0, max: 1 }),
    claimant: fc.integer({ min: 0, max: 4 }),
    // Around a UTC midnight, so that hours and days both split.
    hour: fc.integer({ min: 0, max: 5 }),
    minute: fc.integer({ min: 0, max: 59 }),
    draw: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    usd: fc.integer({ min: 0, max: 1000 }),
  });
  const operation: fc.Arbitrary<Operation> = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), claims: fc.array(newClaim, { minLength: 1, maxLength: 4 }) }),
    fc.record({
      kind: fc.constant('move' as const),
      pick: fc.nat(),
      claimant: fc.integer({ min: 0, max: 4 }),
      hour: fc.integer({ min: 0, max: 5 }),
      draw: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('repay' as const), pick: fc.nat(), position: fc.integer({ min: 0, max: 1 }), amount: fc.integer({ min: 1, max: 5000 }) }),
    fc.record({ kind: fc.constant('revalue' as const), campaign: fc.integer({ min: 0, max: 1 }), factor: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ kind: fc.constant('remove' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }),
  );

  let written = 0;
  const apply = async (step: Operation) => {
    const ids = (await rows<{ id: number }>(sql`SELECT id FROM claims ORDER BY id`)).map((row) => Number(row.id));
    switch (step.kind) {
      case 'insert':
        await database.db.insert(claims).values(
          step.claims.map((claim, n) => ({
            campaignKey: campaignKeys[claim.campaign]!,
            chainId: 8453,
            incentivePosition: claim.position,
            claimant: claimantOf(claim.claimant),
            amount: String(1000 + n),
            usdValue: `${claim.usd}.25`,
            ethValueWei: '0',
            txHash: `0x${(++written).toString(16).padStart(64, '0')}`,
            logIndex: n,
            claimedAt: new Date(BASE + claim.hour * HOUR + claim.minute * 60_000),
            draw: claim.draw,
          })),
        );
        return;
      case 'move': {
        if (ids.length === 0) return;
        const id = ids[step.pick % ids.length]!;
        await database.db.execute(sql`UPDATE claims SET claimant = ${claimantOf(step.claimant)}, claimed_at = ${new Date(BASE + step.hour * HOUR + 7 * 60_000)},
                                                       draw = ${step.draw} WHERE id = ${id}`);
        return;
      }
      case 'repay': {
        if (ids.length === 0) return;
        const id = ids[step.pick % ids.length]!;
        await database.db.execute(sql`UPDATE claims SET incentive_position = ${step.position}, amount = ${step.amount} WHERE id = ${id}`);
        return;
      }
      case 'revalue':
        await database.db.execute(sql`UPDATE claims SET usd_value = usd_value * ${step.factor} WHERE campaign_key = ${campaignKeys[step.campaign]!}`);
        return;
      case 'remove': {
        if (ids.length === 0) return;
        const gone = step.picks.map((pick) => ids[pick % ids.length]!);
        await database.db.execute(sql`DELETE FROM claims WHERE id IN (${sql.join(gone.map((id) => sql`${id}`), sql`, `)})`);
        return;
      }
    }
  };

  it('equals the history recomputed from the claims after every write, applied or not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (operations) => {
        await database.db.execute(sql`DELETE FROM claims`);
        await database.db.execute(sql`SELECT apply_claim_history()`);
        for (const [n, step] of operations.entries()) {
          await apply(step);
          await expectAnswersExact(`step ${n + 1}, ${step.kind}`);
          // The applier after every other write: a batch of one write's changes, or of two.
          if (n % 2 === 1 || n === operations.length - 1) await expectKeptAsRecomputed(`step ${n + 1}, ${step.kind}`);
        }
      }),
      { numRuns: 25, seed: 62 },
    );
  }, 120_000);

  it('is emptied with the claims (TRUNCATE) and rebuilt whole by recompute_claim_history()', async () => {
    await insertClaim(database.db, { campaignKey: campaignKeys[0]!, claimedAt: new Date(BASE) });
    expect(JSON.parse((await kept()).hours)).not.toEqual([]);
    await database.db.execute(sql`TRUNCATE claims CASCADE`);
    expect(await kept()).toEqual({ hours: '[]', buckets: '[]', firsts: '[]' });
  });

  it('writes nothing in a round with nothing to apply', async () => {
    const applierRow = async () =>
      (await rows<{ version: string; snapshot: string }>(sql`SELECT xmin::text AS version, snapshot::text FROM claim_history_applied`))[0]!;
    await insertClaim(database.db, { campaignKey: campaignKeys[0]!, claimedAt: new Date(BASE) });
    await database.db.execute(sql`SELECT apply_claim_history()`);
    const applied = await applierRow();
    await database.db.execute(sql`SELECT apply_claim_history()`);
    expect(await applierRow()).toEqual(applied);
    await insertClaim(database.db, { campaignKey: campaignKeys[1]!, claimedAt: new Date(BASE) });
    await database.db.execute(sql`SELECT apply_claim_history()`);
    expect((await applierRow()).version).not.toBe(applied.version);
    await expectKeptAsRecomputed('a round with nothing to apply');
  });

  it('recomputes the history whole when it finds a reload marker no bulk load accounted for', async () => {
    await database.db.execute(sql`DELETE FROM claims`);
    await insertClaim(database.db, { campaignKey: campaignKeys[0]!, claimedAt: new Date(BASE) });
    await database.db.execute(sql`SELECT apply_claim_history()`);
    // A claim written with the refresh deferred leaves a marker, not a change, and no recompute.
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT set_config('campaign_service.defer_refresh', 'on', true)`);
      await insertClaim(tx, { campaignKey: campaignKeys[1]!, claimedAt: new Date(BASE + HOUR) });
    });
    await expectKeptAsRecomputed('a reload marker');
    expect(JSON.parse((await tables(database.db)).hours)).toHaveLength(2);
  });

  it('applies nothing while a TRUNCATE holds the claims, and does not wait for it', async () => {
    const url = database.url;
    if (!url) return; // One connection on the embedded database: its transactions cannot overlap.
    await insertClaim(database.db, { campaignKey: campaignKeys[0]!, claimedAt: new Date(BASE) });
    const [truncating, applying] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    await Promise.all([truncating.connect(), applying.connect()]);
    try {
      await truncating.query('BEGIN');
      await truncating.query('LOCK TABLE claims IN ACCESS EXCLUSIVE MODE');
      // Waiting for the claims while it held the advisory lock, the applier would deadlock with the
      // TRUNCATE's trigger, which takes that lock.
      expect((await applying.query('SELECT apply_claim_history() AS applied')).rows).toEqual([{ applied: false }]);
      await truncating.query('TRUNCATE claims CASCADE');
      await truncating.query('COMMIT');
      expect((await applying.query('SELECT apply_claim_history() AS applied')).rows).toEqual([{ applied: true }]);
    } finally {
      await Promise.all([truncating.end(), applying.end()]);
    }
    expect(await kept()).toEqual({ hours: '[]', buckets: '[]', firsts: '[]' });
  });

  it('is rebuilt by an import that defers the triggers (a bulk write)', async () => {
    await database.db.execute(sql`DELETE FROM claims`);
    const summary = await importNdjson(database, Readable.from([lines(baseRecords())]), { derived: 'deferred' });
    expect(summary.claim.inserted).toBeGreaterThan(0);
    expect(JSON.parse((await kept()).hours)).not.toEqual([]);
    await expectKeptAsRecomputed('a deferred import');
  });

  it('stays exact while transactions write the same claimants of one campaign at once, through different incentives', async () => {
    const url = database.url;
    if (!url) return; // One connection on the embedded database: its transactions cannot overlap.
    await database.db.execute(sql`DELETE FROM claims`);
    const writers = Array.from({ length: 8 }, (_, writer) => async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('BEGIN');
        for (let n = 0; n < 3; n++) {
          // Two claimants shared by every writer, in the same hour and day; half the writers pay through
          // the other incentive (one each: a writer switching incentives mid-transaction could deadlock).
          await client.query(
            `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
             VALUES ($1, 8453, $2, $3, 5, 1, 0, $4, $5, $6)`,
            [campaignKeys[0], writer % 2, claimantOf(n % 2), `0x${(0xfff000 + writer * 16 + n).toString(16).padStart(64, '0')}`, n, new Date(BASE + (writer % 3) * 60_000)],
          );
          await client.query('SELECT pg_sleep(0.01)');
        }
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
    });
    // An applier as the API runs it, on its own connection, applying whatever has committed so far.
    let writing = true;
    const applier = new pg.Client({ connectionString: url });
    await applier.connect();
    let applications = 0;
    const applying = (async () => {
      while (writing) {
        await applier.query('SELECT apply_claim_history()');
        applications++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      await Promise.all(writers.map((write) => write()));
    } finally {
      writing = false;
      await applying;
      await applier.end();
    }
    expect(applications).toBeGreaterThan(1);
    await expectAnswersExact('concurrent writers');
    await expectKeptAsRecomputed('concurrent writers');
    const [bucket] = await rows<{ claimants: number; new_claimants: number }>(
      sql`SELECT claimants, new_claimants FROM claimant_buckets WHERE campaign_key = ${campaignKeys[0]!} AND unit = 'hour'`,
    );
    expect(bucket).toEqual({ claimants: 2, new_claimants: 2 });
  });
});
