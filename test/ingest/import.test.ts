import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { importNdjson } from '../../src/ingest/ndjson-source.js';
import { validateRecord } from '../../src/ingest/validate.js';
import { IngestError, ingest } from '../../src/ingest/write.js';
import { useTestApp } from '../helpers/app.js';
import { type TestDatabase } from '../helpers/database.js';
import { address } from '../helpers/factories.js';
import { baseRecords, CAMPAIGN_ID, campaignRecord, CHAIN, claimRecord, hash, lines } from '../helpers/records.js';

/** Imports on real PostgreSQL: what a good file writes, and that a bad one writes nothing at all. */

const TABLES = [
  'tokens',
  'projects',
  'action_templates',
  'contracts',
  'users',
  'access_lists',
  'access_list_members',
  'allow_lists',
  'allow_list_addresses',
  'campaigns',
  'incentives',
  'action_steps',
  'claim_signatures',
  'claims',
  'campaign_documents',
  'campaign_set_version',
];

/** Every row of every table the write path touches (derived ones included), as one comparable value. */
async function snapshot(database: TestDatabase): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const table of TABLES) {
    const [row] = await queryRows<{ digest: string | null; n: number }>(
      database.db,
      sql.raw(`SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest, count(*)::int AS n FROM ${table} AS t`),
    );
    result[table] = `${row!.n}:${row!.digest ?? ''}`;
  }
  return result;
}

const importText = (database: TestDatabase, text: string, dryRun = false) => importNdjson(database, Readable.from([text]), { dryRun });

async function problemsOf(database: TestDatabase, text: string) {
  try {
    await importText(database, text);
  } catch (error) {
    if (error instanceof IngestError) return error.problems;
    throw error;
  }
  throw new Error('the import succeeded');
}

describe('import', () => {
  const setup = useTestApp();

  /** What the API shows of the base campaign: derived state is checked where readers see it. */
  const detail = async () => (await setup.app.inject({ url: `/campaigns/${CAMPAIGN_ID}` })).json<Record<string, unknown>>();

  it('writes every kind, derives totals and documents, and a second import of the same file changes nothing', async () => {
    const first = await importText(setup.database, lines(baseRecords()));
    expect(first.claim).toEqual({ inserted: 2, updated: 0, deleted: 0, unchanged: 0 });
    expect(first.campaign).toEqual({ inserted: 1, updated: 0, deleted: 0, unchanged: 0 });
    const [incentive] = await queryRows<{ total_claims: string; total_amount_claimed: string }>(
      setup.database.db,
      sql`SELECT total_claims::text, total_amount_claimed::text FROM incentives WHERE position = 0`,
    );
    expect(incentive).toEqual({ total_claims: '2', total_amount_claimed: '3000' });
    expect(await detail()).toMatchObject({
      id: CAMPAIGN_ID,
      actionClaimant: { targetContractName: 'Zora minter' },
      incentives: [{ totalAmountClaimed: '3000', totalClaims: '2' }, {}],
    });

    const before = await snapshot(setup.database);
    const again = await importText(setup.database, lines(baseRecords()));
    for (const counts of Object.values(again)) expect(counts.inserted + counts.updated + counts.deleted).toBe(0);
    expect(again.claim.unchanged).toBe(2);
    expect(await snapshot(setup.database)).toEqual(before);
  });

  it('updates a changed record, replaces child rows, and deletes by natural key', async () => {
    const records = baseRecords();
    records[0] = { ...records[0], name: 'USD Coin (bridged)' };
    const campaign = records.findIndex((record) => record.kind === 'campaign');
    const claim = records.findIndex((record) => record.kind === 'claim');
    records[campaign] = campaignRecord('1', { incentives: [(campaignRecord('1').incentives as unknown[])[0]], distributionChannels: [] });
    records[claim] = claimRecord(0, { amount: '5000' });
    records.splice(claim + 1, 1, { kind: 'claim', deleted: true, chainId: CHAIN, txHash: hash('11'), logIndex: 1 });
    const summary = await importText(setup.database, lines(records));
    expect(summary.token).toEqual({ inserted: 0, updated: 1, deleted: 0, unchanged: 0 });
    expect(summary.campaign).toEqual({ inserted: 0, updated: 1, deleted: 0, unchanged: 0 });
    expect(summary.claim).toEqual({ inserted: 0, updated: 1, deleted: 1, unchanged: 0 });
    expect(summary.user).toEqual({ inserted: 0, updated: 0, deleted: 0, unchanged: 1 });
    const [incentive] = await queryRows<{ n: number; total: string }>(
      setup.database.db,
      sql`SELECT count(*) OVER ()::int AS n, total_amount_claimed::text AS total FROM incentives`,
    );
    expect(incentive).toEqual({ n: 1, total: '5000' });
    const listed = (await setup.app.inject({ url: '/campaigns?tokenWhitelist=false' })).json<{ campaigns: unknown[] }>();
    expect(listed.campaigns).toMatchObject([{ incentiveCount: '1', incentives: [{ metadata: { name: 'USD Coin (bridged)' } }] }]);

    // Deleting a campaign takes its incentives, steps, signatures and claims with it.
    await importText(
      setup.database,
      lines([{ kind: 'campaign', deleted: true, chainId: CHAIN, coreAddress: address(0xc0000).toUpperCase().replace('0X', '0x'), identifier: '001' }]),
    );
    const [left] = await queryRows<{ campaigns: number; claims: number; signatures: number }>(
      setup.database.db,
      sql`SELECT (SELECT count(*) FROM campaigns)::int AS campaigns, (SELECT count(*) FROM claims)::int AS claims,
                 (SELECT count(*) FROM claim_signatures)::int AS signatures`,
    );
    expect(left).toEqual({ campaigns: 0, claims: 0, signatures: 0 });
    await importText(setup.database, lines(baseRecords()));
  });

  it("derived: 'live' (the indexer's small batches) lets the triggers keep totals and documents statement by statement", async () => {
    const records = [claimRecord(40, { amount: '700', txHash: hash('44') }), claimRecord(41, { amount: '300', txHash: hash('44') })];
    const source = async function* () {
      let line = 0;
      for (const record of records) {
        const validated = validateRecord(record);
        if (!validated.ok) throw new Error(validated.error);
        yield { line: ++line, key: validated.key, record: validated.record };
      }
    };
    const [before] = await queryRows<{ total: string }>(setup.database.db, sql`SELECT total_amount_claimed::text AS total FROM incentives WHERE position = 0`);
    const summary = await ingest(setup.database, source(), { derived: 'live' });
    expect(summary.claim).toEqual({ inserted: 2, updated: 0, deleted: 0, unchanged: 0 });
    const [after] = await queryRows<{ total: string }>(setup.database.db, sql`SELECT total_amount_claimed::text AS total FROM incentives WHERE position = 0`);
    expect(BigInt(after!.total) - BigInt(before!.total)).toBe(1000n);
    expect(await detail()).toMatchObject({ incentives: [{ totalAmountClaimed: after!.total }, {}] });
  });

  it('--dry-run checks and merges, then writes nothing', async () => {
    const before = await snapshot(setup.database);
    const summary = await importText(setup.database, lines([...baseRecords(), campaignRecord('2')]), true);
    expect(summary.campaign).toEqual({ inserted: 1, updated: 0, deleted: 0, unchanged: 1 });
    expect(await snapshot(setup.database)).toEqual(before);
  });

  // Each bad file first changes a record (line 1), so "unchanged" shows the whole file was refused.
  const rename = `${JSON.stringify({ ...baseRecords()[0], name: 'Renamed' })}\n`;
  const badInputs: { name: string; text: string; line: number | undefined; message: RegExp }[] = [
    { name: 'malformed JSON', text: `${rename}{"kind": "token", "chainId": 8453,\n`, line: 2, message: /^not valid JSON/ },
    { name: 'an unknown kind', text: `${rename}{"kind": "campaing"}\n`, line: 2, message: /^unknown kind 'campaing': expected one of token, / },
    {
      name: 'a wrong type',
      text: `${rename}${lines([{ ...claimRecord(5), amount: 1000 }])}`,
      line: 2,
      message: /^claim\.amount must be a decimal integer string/,
    },
    {
      name: 'a number over 78 digits',
      text: `${rename}${lines([claimRecord(5, { amount: '1'.repeat(79) })])}`,
      line: 2,
      message: /^claim\.amount must be a decimal integer string \(at most 78 digits\)$/,
    },
    {
      name: 'a nested field of the wrong type',
      text: `${rename}${lines([campaignRecord('3', { incentives: [{ type: 'ERC20Incentive', params: { limit: 'ten' } }] })])}`,
      line: 2,
      message: /^campaign\.incentives\[0\]\.params\.limit must be a decimal integer string/,
    },
    {
      name: 'an unknown field',
      text: `${rename}${lines([claimRecord(5, { amout: '1' })])}`,
      line: 2,
      message: /^claim has an unknown field 'amout'$/,
    },
    {
      name: 'a claim of a campaign that neither the file nor the database has',
      text: `${rename}${lines([claimRecord(5), claimRecord(6, { campaign: `${CHAIN}:${address(0xc0000)}:999` })])}`,
      line: 3,
      message: new RegExp(`^claim\\.campaign ${CHAIN}:${address(0xc0000)}:999 is neither in the input nor in the database$`),
    },
    {
      name: 'a claim on another chain than its campaign',
      text: `${rename}${lines([claimRecord(5, { chainId: 10 })])}`,
      line: 2,
      message: /^claim\.chainId 10 is not the chain of claim\.campaign \(8453\)$/,
    },
    {
      name: 'a claim of an incentive its campaign does not have',
      text: `${rename}${lines([claimRecord(5, { incentivePosition: 7 })])}`,
      line: 2,
      message: /^claim\.incentivePosition: the campaign has no incentive 7 of /,
    },
    {
      name: 'the same key twice in a file',
      text: `${rename}${lines([claimRecord(5), campaignRecord('1'), claimRecord(5, { amount: '7' })])}`,
      line: 4,
      message: new RegExp(`^claim ${CHAIN}:${hash('11')}:5 is given again \\(first on line 2\\)$`),
    },
    {
      name: 'a truncated last line',
      text: `${rename}${lines([claimRecord(5)]).slice(0, -1)}`,
      line: 2,
      message: /the file looks truncated/,
    },
    {
      name: 'the deletion of a project an action template still names',
      text: `${rename}${lines([{ kind: 'project', deleted: true, id: '00000000-0000-4000-8000-0000000000b1' }])}`,
      line: undefined,
      message: /^writing project records: .*violates foreign key constraint/,
    },
    {
      name: 'a reference to a missing action template',
      text: `${rename}${lines([campaignRecord('4', { actionTemplateId: '00000000-0000-4000-8000-0000000000ff' })])}`,
      line: 2,
      message: /^campaign\.actionTemplateId 00000000-0000-4000-8000-0000000000ff is neither in the input nor in the database$/,
    },
  ];

  for (const bad of badInputs) {
    it(`refuses ${bad.name}, naming the line and the field, and leaves the database as it was`, async () => {
      const before = await snapshot(setup.database);
      const problems = await problemsOf(setup.database, bad.text);
      expect(problems[0]!.line).toBe(bad.line);
      expect(problems[0]!.message).toMatch(bad.message);
      expect(await snapshot(setup.database)).toEqual(before);
    });
  }
});
