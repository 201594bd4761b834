import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { type Basis, confirmBasis, StaleBasisError } from '../../src/indexer/basis.js';
import { storedAllowLists, storedCampaigns } from '../../src/indexer/store.js';
import { importNdjson } from '../../src/ingest/ndjson-source.js';
import { address } from '../helpers/factories.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { baseRecords, CAMPAIGN_ID, campaignRecord, CHAIN, CORE, lines } from '../helpers/records.js';

/**
 * confirmBasis against real PostgreSQL: the stored campaigns and allow lists a batch was built from
 * are read again in the writing transaction; a difference is a StaleBasisError, and the rows stay
 * locked until that transaction ends, so an import of them waits for it.
 */

const ID = { chainId: CHAIN, core: CORE };
const server = inject('testDatabase');
const ALLOW_LIST = address(0x40001);

describe('confirmBasis', () => {
  let database: TestDatabase;
  const importRecords = (records: Record<string, unknown>[]) => importNdjson(database, Readable.from([lines(records)]));
  const basisNow = async (): Promise<Basis> => ({
    campaigns: new Map([['1', (await storedCampaigns(database, ID, ['1'])).get('1')!]]),
    allowLists: new Map([[ALLOW_LIST, (await storedAllowLists(database, CHAIN, [ALLOW_LIST])).get(ALLOW_LIST)!]]),
  });
  const confirm = (basis: Basis) => database.bulkTransaction((session) => confirmBasis(session, ID, basis));

  beforeAll(async () => {
    database = await createTestDatabase();
    await importRecords(baseRecords());
  });

  afterAll(async () => {
    await database?.close();
  });

  it('passes when nothing changed, also for a campaign and an allow list that were and are absent', async () => {
    const basis = await basisNow();
    expect(basis.campaigns.get('1')?.campaignName).toBe('Campaign 1');
    basis.campaigns.set('999', null);
    basis.allowLists.set(address(0x49999), null);
    await expect(confirm(basis)).resolves.toBeUndefined();
  });

  it('throws StaleBasisError naming the campaign an import renamed since it was read', async () => {
    const basis = await basisNow();
    await importRecords([campaignRecord('1', { campaignName: 'Renamed by the operator' })]);
    const error = await confirm(basis).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StaleBasisError);
    expect((error as Error).message).toBe(`an import changed campaign ${CAMPAIGN_ID} while its blocks were read; reading them again`);
    await expect(confirm(await basisNow())).resolves.toBeUndefined();
  });

  it('throws StaleBasisError naming the allow list an import changed since it was read', async () => {
    const basis = await basisNow();
    const allowList = baseRecords().find((record) => record.kind === 'allowList')!;
    await importRecords([{ ...allowList, addresses: [address(5)] }]);
    await expect(confirm(basis)).rejects.toThrow(`an import changed allow list ${CHAIN}:${ALLOW_LIST} while`);
  });

  it('throws StaleBasisError when a campaign read as absent exists now', async () => {
    const basis: Basis = { campaigns: new Map([['2', null]]), allowLists: new Map() };
    await importRecords([campaignRecord('2')]);
    await expect(confirm(basis)).rejects.toBeInstanceOf(StaleBasisError);
  });

  // Two transactions at once: PostgreSQL only (the embedded database has one connection).
  it.runIf(server.kind === 'postgres')('keeps the rows locked until the writing transaction ends: an import of the campaign waits for it', async () => {
    const basis = await basisNow();
    let imported = false;
    let importing: Promise<unknown> | undefined;
    await database.bulkTransaction(async (session) => {
      await confirmBasis(session, ID, basis);
      importing = importRecords([campaignRecord('1', { campaignName: 'Imported while the indexer wrote' })]).then(() => (imported = true));
      // The import's upsert of campaign 1 waits for this transaction's row lock.
      for (let waited = 0; ; waited += 50) {
        const [row] = await queryRows<{ waiting: number }>(
          database.db,
          sql`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (row!.waiting > 0) break;
        if (waited > 20_000) throw new Error('the import never waited for the lock');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(imported).toBe(false);
    });
    await importing;
    const stored = await storedCampaigns(database, ID, ['1']);
    expect(stored.get('1')?.campaignName).toBe('Imported while the indexer wrote');
  });
});
