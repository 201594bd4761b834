import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { importNdjson } from '../../src/ingest/ndjson-source.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { baseRecords, campaignRecord, lines } from '../helpers/records.js';

/**
 * What an import sends the event streams (GET /events), read from the event log the streams are fed
 * from: a bulk write (derived state deferred) sends one refetch per statement that wrote rows, and
 * nothing when it wrote none, as an import of a file already imported does.
 */
describe('events of a bulk import', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  const importRecords = (records: unknown[], derived: 'deferred' | 'live') => importNdjson(database, Readable.from([lines(records)]), { derived });
  const eventLog = async () => {
    const [row] = await queryRows<{ events: number; transactions: number; markers: number }>(
      database.db,
      sql`SELECT (SELECT count(*)::int FROM events) AS events, (SELECT count(*)::int FROM event_commits) AS transactions,
                 (SELECT count(*)::int FROM claim_changes WHERE campaign_key IS NULL) AS markers`,
    );
    return row!;
  };
  const refetchesSince = async (id: number) =>
    (await queryRows<{ reason: string }>(database.db, sql`SELECT data->>'reason' AS reason FROM events WHERE id > ${id} AND type = 'refetch' ORDER BY id`)).map(
      (row) => row.reason,
    );
  const lastEventId = async () => (await queryRows<{ id: number }>(database.db, sql`SELECT coalesce(max(id), 0)::int AS id FROM events`))[0]!.id;

  it('sends refetch for what a bulk import wrote', async () => {
    const before = await lastEventId();
    await importRecords(baseRecords(), 'deferred');
    const reasons = await refetchesSince(before);
    expect(reasons).toContain('campaigns were rewritten in bulk');
    expect(reasons).toContain('claims were rewritten in bulk');
  });

  it('sends nothing, and makes no server reload its claims, for a bulk import that changes nothing', async () => {
    const before = await eventLog();
    const summary = await importRecords(baseRecords(), 'deferred');
    expect(Object.values(summary).every((counts) => counts.inserted + counts.updated + counts.deleted === 0)).toBe(true);
    expect(await eventLog()).toEqual(before);
  });

  it('sends nothing for a live import that changes nothing', async () => {
    const before = await eventLog();
    await importRecords(baseRecords(), 'live');
    expect(await eventLog()).toEqual(before);
  });

  it('sends refetch for the campaigns a bulk import changes, and none for the claims it leaves alone', async () => {
    const before = await lastEventId();
    const markers = (await eventLog()).markers;
    const records = baseRecords().map((record) => (record.kind === 'campaign' ? campaignRecord('1', { campaignName: 'Renamed' }) : record));
    await importRecords(records, 'deferred');
    expect(await refetchesSince(before)).toEqual(['campaigns were rewritten in bulk']);
    expect((await eventLog()).markers).toBe(markers);
  });
});
