import { connect as connectSocket, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { EventFeed } from '../../src/events/index.js';
import { createEventsRepository, type EventPosition } from '../../src/repositories/events.repository.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertClaim, insertToken } from '../helpers/factories.js';
import { type ReceivedEvent, SseClient } from '../helpers/sse.js';

/**
 * GET /events under bursts, over real sockets: a client is slow when it does not read, not when a
 * lot was committed at once; every stream gets every event once, or a refetch.
 */

let nextClaim = 0x100000;
/** Writes `count` claims of a campaign in one statement, as an import or an indexer range does. */
async function writeClaims(database: TestDatabase, campaignKey: number, count: number): Promise<void> {
  const first = nextClaim;
  nextClaim += count;
  await database.db.execute(sql`
    INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index)
    SELECT ${campaignKey}, 0, '0x' || lpad(to_hex(g), 40, '0'), 1000000, 1, 1, '0x' || lpad(to_hex(g), 64, '0'), now(), 8453, 0
      FROM generate_series(${first}::int, ${first + count - 1}::int) AS g`);
}

const claims = (events: ReceivedEvent[]) => events.filter((event) => event.event === 'claim.written');
const txHashes = (events: ReceivedEvent[]) => claims(events).map((event) => (JSON.parse(event.data) as { txHash: string }).txHash);

async function claimEventsSince(database: TestDatabase, seq: number): Promise<string[]> {
  const rows = await queryRows<{ tx_hash: string }>(
    database.db,
    sql`SELECT e.data->>'txHash' AS tx_hash FROM events AS e JOIN event_commits AS c ON c.xid = e.xid
         WHERE e.type = 'claim.written' AND c.seq > ${seq} ORDER BY c.seq, e.id`,
  );
  return rows.map((row) => row.tx_hash);
}

const headSeq = async (database: TestDatabase) =>
  (await queryRows<{ seq: number }>(database.db, sql`SELECT coalesce(max(seq), 0)::float8 AS seq FROM event_commits`))[0]!.seq;

describe('GET /events under bursts', () => {
  let database: TestDatabase;
  let app: App;
  let base: string;
  let campaignKey: number;
  const clients: SseClient[] = [];

  const connect = async (query = '', headers: Record<string, string> = {}) => {
    const client = new SseClient(`${base}/events${query}`, headers);
    clients.push(client);
    await client.open();
    return client;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const token = await insertToken(database.db);
    campaignKey = (await insertCampaign(database.db, { incentives: [erc20Incentive(token.address, '1000000000000', '1')] })).key;
    // Memory keeps few events, so that a stream that resumes or falls behind catches up from the log.
    app = await buildTestApp(database, { EVENTS_POLL_MS: '20', EVENTS_KEEP: '100', EVENTS_MAX_STREAMS_PER_IP: '50', EVENTS_STALL_MS: '500', EVENTS_MAX_BUFFER_KB: '16' });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app?.close();
    await database?.close();
  });

  it('sends a burst of 3,000 claims in one transaction whole to every stream that reads, filtered or not', async () => {
    const before = await headSeq(database);
    const streams = await Promise.all([connect(), connect(), connect(), connect('?type=claim.written')]);
    await writeClaims(database, campaignKey, 3_000);
    const expected = await claimEventsSince(database, before);
    expect(expected).toHaveLength(3_000);
    for (const stream of streams) {
      await stream.until((events) => claims(events).length >= 3_000, 20_000);
      expect(txHashes(stream.events)).toEqual(expected);
      expect(stream.events.some((event) => event.event === 'refetch')).toBe(false);
    }
    const dropped = await app.inject({ url: '/metrics' });
    expect(dropped.body).toContain('event_streams_dropped_total{reason="stalled"} 0');
    await Promise.all(streams.map((stream) => stream.close()));
  });

  it('sends a stream that resumes 4,000 events back everything it missed, in pages, then what comes next', async () => {
    const first = await connect();
    await first.until(() => first.lastEventId !== undefined);
    await first.close();
    const resumeFrom = first.lastEventId!;
    const before = await headSeq(database);
    for (let round = 0; round < 4; round++) await writeClaims(database, campaignKey, 1_000);
    const resumed = await connect('', { 'last-event-id': resumeFrom });
    await writeClaims(database, campaignKey, 10);
    const expected = await claimEventsSince(database, before);
    await resumed.until((events) => claims(events).length >= 4_010, 20_000);
    expect(txHashes(resumed.events)).toEqual(expected);
    await resumed.close();
  });

  it('opens every stream with the id of where it starts: a client that loses it before its first event misses nothing', async () => {
    const stream = await connect('?type=claim.written');
    await stream.until(() => stream.lastEventId !== undefined);
    await stream.close();
    expect(stream.events).toEqual([]);
    const missed = await insertClaim(database.db, { campaignKey });
    const resumed = await connect('?type=claim.written', { 'last-event-id': stream.lastEventId! });
    await resumed.until((events) => claims(events).length >= 1);
    expect(txHashes(resumed.events)).toEqual([missed.txHash]);
    await resumed.close();
  });

  it('tells a stream whose Last-Event-ID is ahead of the event log to refetch, then follows from the head', async () => {
    for (const ahead of [(head: number) => `${head + 9}-0`, () => '999999999999999-999999999999999', (head: number) => `${head + 1}`]) {
      const head = await headSeq(database);
      const id = ahead(head);
      const stream = await connect('?type=claim.written', { 'last-event-id': id });
      await stream.until((events) => events.length >= 1);
      expect(stream.events[0]!.event, id).toBe('refetch');
      expect((JSON.parse(stream.events[0]!.data) as { reason: string }).reason).toContain('ahead of this server');
      // The refetch names where the stream goes on from: a client reconnecting after it is not told again.
      expect(stream.events[0]!.id).toBe(String(head));
      const claim = await insertClaim(database.db, { campaignKey });
      await stream.until((events) => claims(events).length >= 1);
      expect(txHashes(stream.events)).toEqual([claim.txHash]);
      await stream.close();
    }
    const metrics = await app.inject({ url: '/metrics' });
    expect(metrics.body).toContain('event_stream_refetches_total{reason="ahead"} 3');
  });

  it('closes a stream whose client reads nothing, counts it, and the streams that read go on', async () => {
    const reader = await connect('?type=claim.written');
    // A client that sends its request and then reads nothing: the sockets' buffers fill, then the server's.
    const socket: Socket = connectSocket(Number(new URL(base).port), '127.0.0.1');
    socket.write('GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    socket.pause();
    // The client sees its stream end only once it reads what came before the end: the server says when it dropped it.
    const dropped = () => app.eventStreams.dropped.stalled === 1;
    let written = 0;
    for (; !dropped() && written < 200_000; written += 2_000) {
      await writeClaims(database, campaignKey, 2_000);
      // Time for the stall clock: what the server could write is written by now, or waits for the client.
      await reader.until((events) => claims(events).length >= written + 2_000, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
    expect(dropped()).toBe(true);
    socket.destroy();
    expect(claims(reader.events)).toHaveLength(written);
    const metrics = await app.inject({ url: '/metrics' });
    expect(metrics.body).toContain('event_streams_dropped_total{reason="stalled"} 1');
    await reader.close();
  });
});

describe('GET /events stream limits, with many requests at once', () => {
  let database: TestDatabase;
  const apps: App[] = [];
  const clients: SseClient[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(apps.map((app) => app.close()));
    await database?.close();
  });

  /**
   * Opens `count` streams at once on an idle app, whose feed reads where a new stream starts from
   * the log. The log answers that read slowly here (as a loaded database does), so that every
   * request arrives while the first waits for it.
   */
  async function openAtOnce(overrides: Record<string, string>, count: number): Promise<number[]> {
    const log = createEventsRepository(database.db);
    const slowLog = { after: (from: EventPosition, limit: number) => log.after(from, limit), head: async () => (await new Promise((resolve) => setTimeout(resolve, 300)), log.head()) };
    const eventFeed = new EventFeed({ events: slowLog, pollMs: 20, keepEvents: 100, logger: { warn: () => undefined } });
    const app = await buildTestApp(database, { EVENTS_POLL_MS: '20', ...overrides }, undefined, { eventFeed });
    apps.push(app);
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const streams = Array.from({ length: count }, () => new SseClient(`${base}/events`));
    clients.push(...streams);
    return Promise.all(streams.map((stream) => stream.open()));
  }

  it('admits no more streams from one IP than EVENTS_MAX_STREAMS_PER_IP', async () => {
    const statuses = await openAtOnce({ EVENTS_MAX_STREAMS_PER_IP: '8' }, 200);
    expect(statuses.filter((status) => status === 200)).toHaveLength(8);
    expect(statuses.filter((status) => status === 429)).toHaveLength(192);
  });

  it('admits no more streams into one process than EVENTS_MAX_STREAMS', async () => {
    const statuses = await openAtOnce({ EVENTS_MAX_STREAMS: '10', EVENTS_MAX_STREAMS_PER_IP: '1000' }, 200);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 503)).toHaveLength(190);
  });
});
