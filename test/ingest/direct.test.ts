import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { writeDataset } from '../../src/ingest/bulk-load.js';
import { writeRecords } from '../../src/ingest/direct.js';
import { exportNdjson } from '../../src/ingest/export.js';
import { memorySource } from '../../src/ingest/memory-source.js';
import { type IngestRecord, RECORD_KINDS, type UpsertRecord } from '../../src/ingest/records.js';
import { IngestError, type IngestSummary, ingest } from '../../src/ingest/write.js';
import { generateDataset } from '../../src/seed/dataset.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address } from '../helpers/factories.js';
import { baseRecords, CAMPAIGN_ID, CHAIN, claimRecord, hash } from '../helpers/records.js';

/**
 * The direct path (writeRecords, the indexer's) against ingest(): the same records give the same
 * summary, the same rows and the same refusals, without a temporary table.
 */

async function exportText(database: TestDatabase): Promise<string> {
  let text = '';
  await exportNdjson(database, async (chunk) => {
    text += chunk;
  });
  return text;
}

const asRecords = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line) as IngestRecord);

/** Derived state, where both paths must agree too: claim totals, documents, flags and the claim feed's rows. */
const derived = (database: TestDatabase) =>
  queryRows<Record<string, string>>(
    database.db,
    sql`SELECT (SELECT md5(string_agg(c.public_id || d.list_item || d.detail, '' ORDER BY c.public_id)) FROM campaign_documents AS d
                  JOIN campaigns AS c ON c.key = d.campaign_key) AS documents,
               (SELECT md5(string_agg(c.public_id || i.position || i.total_claims || i.total_amount_claimed || i.total_usd_claimed, ','
                                      ORDER BY c.public_id, i.position))
                  FROM incentives AS i JOIN campaigns AS c ON c.key = i.campaign_key) AS totals,
               (SELECT md5(string_agg(public_id || has_budget_left || pays_only_whitelisted_tokens, ',' ORDER BY public_id)) FROM campaigns) AS flags,
               (SELECT count(*) FILTER (WHERE sign = 1) || '/' || count(*) FILTER (WHERE sign = -1) || '/' || count(*) FILTER (WHERE campaign_key IS NULL)
                  FROM claim_changes) AS feed`,
  );

async function refusal(write: () => Promise<unknown>): Promise<IngestError> {
  const error = await write().then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof IngestError)) throw new Error(`expected an IngestError, got ${String(error)}`);
  return error;
}

describe('the direct write path', () => {
  let direct: TestDatabase;
  let staged: TestDatabase;
  let records: IngestRecord[];

  beforeAll(async () => {
    const source = await createTestDatabase();
    try {
      await writeDataset(source, generateDataset({ campaigns: 40, claims: 400, seed: 5, now: new Date('2026-11-20T11:00:00.000Z') }));
      records = asRecords(await exportText(source));
      // The seed imports no price history: past prices of its priced tokens, after the tokens, so that every kind is written.
      const tokens = records.filter((record): record is Extract<UpsertRecord, { kind: 'token' }> => record.kind === 'token' && 'priceUsd' in record);
      const prices = tokens
        .filter((token) => token.priceUsd != null)
        .map((token): IngestRecord => ({ kind: 'price', chainId: token.chainId, address: token.address, at: '2026-11-19T10:00:00.000Z', priceUsd: token.priceUsd! }));
      records.splice(tokens.length, 0, ...prices);
    } finally {
      await source.close();
    }
    [direct, staged] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([direct?.close(), staged?.close()]);
  });

  /** ingest() live, as the indexer wrote before the direct path, so that both keep derived state statement by statement. */
  const both = async (input: IngestRecord[]): Promise<[IngestSummary, IngestSummary]> => [
    await writeRecords(direct, input),
    await ingest(staged, memorySource(input), { derived: 'live' }),
  ];

  it('writes every kind as ingest() does: summary, rows, derived state and claim feed', async () => {
    expect(new Set(records.map((record) => record.kind)).size).toBe(RECORD_KINDS.length);
    const [fromDirect, fromStaged] = await both(records);
    expect(fromDirect).toEqual(fromStaged);
    expect(fromDirect.claim.inserted).toBe(400);
    expect(await exportText(direct)).toBe(await exportText(staged));
    expect(await derived(direct)).toEqual(await derived(staged));
    expect((await derived(direct))[0]!.feed).toBe('400/0/0');
  });

  it('changes nothing when written again, and counts updates, child rows and deletions as ingest() does', async () => {
    const [again] = await both(records);
    for (const counts of Object.values(again)) expect(counts.inserted + counts.updated + counts.deleted).toBe(0);

    type Upsert<K> = Extract<UpsertRecord, { kind: K }>;
    const isListWithMembers = (record: IngestRecord) => record.kind === 'allowList' && ((record as Upsert<'allowList'>).addresses ?? []).length > 0;
    const campaign = records.findIndex((record) => record.kind === 'campaign');
    const allowList = records.findIndex(isListWithMembers);
    const claim = records.find((record) => record.kind === 'claim') as Upsert<'claim'>;
    const changed = [...records];
    changed[campaign] = { ...(changed[campaign] as Upsert<'campaign'>), campaignName: 'renamed', steps: [] };
    const list = changed[allowList] as Upsert<'allowList'>;
    changed[allowList] = { ...list, addresses: [...(list.addresses ?? []).slice(1), address(0xfeed)].sort() };
    changed.push({ kind: 'claim', deleted: true, chainId: claim.chainId, txHash: claim.txHash, logIndex: claim.logIndex });
    changed.splice(changed.indexOf(claim), 1);
    const [fromDirect, fromStaged] = await both(changed);
    expect(fromDirect).toEqual(fromStaged);
    expect(fromDirect.campaign).toMatchObject({ updated: 1 });
    expect(fromDirect.allowList).toMatchObject({ updated: 1 });
    expect(fromDirect.claim).toMatchObject({ deleted: 1 });
    expect(await exportText(direct)).toBe(await exportText(staged));
    expect(await derived(direct)).toEqual(await derived(staged));
  });

  it('creates no temporary table', async () => {
    let temporary = -1;
    await writeRecords(direct, records.filter((record) => record.kind === 'claim').slice(-1), {
      beforeCommit: async (session) => {
        const [row] = await session.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_class WHERE relpersistence = 't'`);
        temporary = row!.n;
      },
    });
    expect(temporary).toBe(0);
  });

  it('refuses what ingest() refuses, with the same problems, and writes nothing', async () => {
    const before = await exportText(direct);
    const claimOf = (campaign: string, logIndex: number) => ({ ...claimRecord(logIndex), campaign, txHash: hash('ab') }) as IngestRecord;
    const duplicate = [claimOf(CAMPAIGN_ID, 1), claimOf(CAMPAIGN_ID, 2), claimOf(CAMPAIGN_ID, 1)];
    const unknownCampaign = [claimOf(`${CHAIN}:${address(0xdead)}:9`, 1)];
    for (const input of [duplicate, unknownCampaign]) {
      const fromDirect = await refusal(() => writeRecords(direct, input));
      const fromStaged = await refusal(() => ingest(staged, memorySource(input)));
      expect(fromDirect.problems).toEqual(fromStaged.problems);
      expect(fromDirect.problems.length).toBeGreaterThan(0);
    }
    expect((await refusal(() => writeRecords(direct, duplicate))).problems).toEqual([
      { line: 3, message: `claim ${CHAIN}:${hash('ab')}:1 is given again (first on line 1)` },
    ]);
    expect(await exportText(direct)).toBe(before);
  });

  it('hands a record that fails validation to the caller', async () => {
    const invalid = { ...baseRecords()[0], decimals: 'many' } as unknown as IngestRecord;
    await expect(writeRecords(direct, [invalid], { invalid: (record, error) => new Error(`bad ${record.kind}: ${error}`) })).rejects.toThrow(/^bad token: /);
  });
});
