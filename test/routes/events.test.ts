import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { address, erc20Incentive, insertCampaign, insertClaim, insertToken } from '../helpers/factories.js';
import { type ReceivedEvent, SseClient } from '../helpers/sse.js';

interface ClaimData {
  campaignId: string | null;
  claimant: string;
  txHash: string;
  logIndex: number;
  amount: string;
  usdValue: number;
  blockNumber: number | null;
}

const claimsOf = (events: ReceivedEvent[], type = 'claim.written') =>
  events.filter((event) => event.event === type).map((event) => JSON.parse(event.data) as ClaimData);

/** Event ids order as <commit position>-<event id>, both numbers. */
const order = (id: string) => id.split('-').map(Number) as [number, number];
const ascending = (ids: string[]) => ids.every((id, i) => i === 0 || order(ids[i - 1]!)[0] < order(id)[0] || (order(ids[i - 1]!)[0] === order(id)[0] && order(ids[i - 1]!)[1] < order(id)[1]));

describe('GET /events', () => {
  let database: TestDatabase;
  let app: App;
  let base: string;
  let campaign: { key: number; publicId: string };
  let other: { key: number; publicId: string };
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
    campaign = await insertCampaign(database.db, { incentives: [erc20Incentive(token.address)] });
    other = await insertCampaign(database.db, { incentives: [erc20Incentive(token.address)] });
    app = await buildTestApp(database, { EVENTS_POLL_MS: '20', EVENTS_HEARTBEAT_MS: '100', EVENTS_MAX_STREAMS_PER_IP: '8', EVENTS_KEEP: '50', EVENTS_TRENDING_MS: '1000' });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app?.close();
    await database?.close();
  });

  it('pushes each claim as it commits, with its data, to the streams whose filters take it', async () => {
    const all = await connect('', { origin: 'https://dapp.example' });
    expect(all.status).toBe(200);
    expect(all.headers!['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(all.headers!['access-control-allow-origin']).toBe('*');
    const ofCampaign = await connect(`?campaignId=${campaign.publicId}`);
    const ofClaimant = await connect(`?claimant=${address(0x5151).toUpperCase().replace('0X', '0x')}&type=claim.written`);
    const removals = await connect('?type=claim.removed');

    const first = await insertClaim(database.db, { campaignKey: campaign.key, usdValue: '2.5', blockNumber: 1234 });
    const second = await insertClaim(database.db, { campaignKey: other.key, claimant: address(0x5151) });
    await all.until((events) => claimsOf(events).length === 2);
    const [one, two] = claimsOf(all.events);
    expect(one).toEqual({
      campaignId: campaign.publicId,
      chainId: 8453,
      claimant: first.claimant,
      incentivePosition: 0,
      amount: '1000000',
      usdValue: 2.5,
      valuePending: false,
      txHash: first.txHash,
      blockNumber: 1234,
      logIndex: first.logIndex,
      claimedAt: first.claimedAt.toISOString(),
    });
    expect(two!.txHash).toBe(second.txHash);
    expect(ascending(all.events.map((event) => event.id!))).toBe(true);

    await ofCampaign.until((events) => claimsOf(events).length === 1);
    await ofClaimant.until((events) => claimsOf(events).length === 1);
    expect(claimsOf(ofCampaign.events)[0]!.txHash).toBe(first.txHash);
    expect(claimsOf(ofClaimant.events)[0]!.txHash).toBe(second.txHash);

    await database.db.execute(sql`DELETE FROM claims WHERE id = ${first.id}`);
    await removals.until((events) => claimsOf(events, 'claim.removed').length === 1);
    expect(claimsOf(removals.events, 'claim.removed')[0]).toMatchObject({ txHash: first.txHash, campaignId: campaign.publicId });
    expect(claimsOf(removals.events)).toEqual([]);
    // The others got what they asked for and nothing else.
    await all.until((events) => claimsOf(events, 'claim.removed').length === 1);
    expect(claimsOf(ofClaimant.events, 'claim.removed')).toEqual([]);
    // Heartbeats (every 100 ms here) keep a quiet stream open: one arrives however fast the above ran.
    await all.until(() => all.comments > 0);
    await Promise.all([all, ofCampaign, ofClaimant, removals].map((client) => client.close()));
  });

  it('pushes a campaign created, changed by a claim, and removed, with its state after the write', async () => {
    const stream = await connect('?type=campaign.created,campaign.changed,campaign.removed');
    const token = await insertToken(database.db, { priceUsd: '2', decimals: 6 });
    const created = await insertCampaign(database.db, { incentives: [erc20Incentive(token.address, '1000000', '10')] });
    const ofCampaign = (events: ReceivedEvent[]) =>
      events.map((event) => ({ type: event.event, data: JSON.parse(event.data) as Record<string, unknown> })).filter((event) => event.data.campaignId === created.publicId);
    await stream.until((events) => ofCampaign(events).some((event) => event.type === 'campaign.changed'));
    const [first] = ofCampaign(stream.events);
    expect(first).toEqual({
      type: 'campaign.created',
      data: { campaignId: created.publicId, chainId: 8453, availableBudgetUsd: null, isActive: false, exhausted: true, ended: false, startTime: null, endTime: null },
    });
    const budgetBefore = ofCampaign(stream.events).at(-1)!.data.availableBudgetUsd;
    expect(budgetBefore).toBe('20.00');
    await insertClaim(database.db, { campaignKey: created.key, amount: '1000000' });
    await stream.until((events) => ofCampaign(events).at(-1)!.data.availableBudgetUsd !== budgetBefore);
    expect(ofCampaign(stream.events).at(-1)).toEqual({
      type: 'campaign.changed',
      data: expect.objectContaining({ availableBudgetUsd: '18.00', isActive: true, exhausted: false }) as unknown,
    });
    await database.db.execute(sql`DELETE FROM campaigns WHERE key = ${created.key}`);
    await stream.until((events) => ofCampaign(events).some((event) => event.type === 'campaign.removed'));
    expect(ofCampaign(stream.events).at(-1)).toEqual({ type: 'campaign.removed', data: { campaignId: created.publicId, chainId: 8453 } });
    expect(stream.events.every((event) => event.event.startsWith('campaign.'))).toBe(true);
    await stream.close();
  });

  it('pushes the 1h and 24h trending tops when they move, at most once a second each', async () => {
    const stream = await connect('?type=trending.changed');
    const started = Date.now();
    await insertClaim(database.db, { campaignKey: other.key, usdValue: '5000' });
    const tops = () => stream.events.map((event) => JSON.parse(event.data) as { period: string; top: { campaignId: string; usdClaimed: number; claims: number }[] });
    await stream.until((events) => events.length >= 2);
    expect(tops().map((event) => event.period).sort()).toEqual(['1h', '24h']);
    for (const { top } of tops()) expect(top[0]).toMatchObject({ campaignId: other.publicId, usdClaimed: expect.any(Number) as unknown });
    expect(Date.now() - started).toBeLessThan(5_000);
    // Nothing moved since: no further event, though the tops are compared every second.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect(stream.events).toHaveLength(2);
    // A trending event's id follows the last event it reflects, and a stream may resume from it.
    const resumed = await connect('?type=claim.written', { 'last-event-id': stream.lastEventId! });
    const claim = await insertClaim(database.db, { campaignKey: campaign.key });
    await resumed.until((events) => claimsOf(events).some((data) => data.txHash === claim.txHash));
    expect(claimsOf(resumed.events)).toHaveLength(1);
    await Promise.all([stream.close(), resumed.close()]);
  });

  // Two sessions at once: PostgreSQL only (PGlite is one session).
  it.skipIf(inject('testDatabase').kind === 'pglite')('orders events by commit, not by when their transactions began', async () => {
    const stream = await connect();
    // Two campaigns: a claim updates its incentive's totals, and the second writer would wait for the first's row.
    const early = await database.pool!.connect();
    try {
      await early.query('BEGIN');
      await early.query(`INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index)
                         VALUES ($1, 0, $2, 1, 1, 1, $3, now(), 8453, 1)`, [other.key, address(0xea1), `0x${'e1'.repeat(32)}`]);
      const late = await insertClaim(database.db, { campaignKey: campaign.key });
      await stream.until((events) => claimsOf(events).some((claim) => claim.txHash === late.txHash));
      expect(claimsOf(stream.events).some((claim) => claim.txHash === `0x${'e1'.repeat(32)}`)).toBe(false);
      await early.query('COMMIT');
      await stream.until((events) => claimsOf(events).length === 2);
      expect(claimsOf(stream.events).map((claim) => claim.txHash)).toEqual([late.txHash, `0x${'e1'.repeat(32)}`]);
      expect(ascending(stream.events.map((event) => event.id!))).toBe(true);
    } finally {
      early.release();
    }
    await stream.close();
  });

  it('resumes after every disconnect with exactly the events missed, while concurrent writers commit', async () => {
    const before = new Set(
      (await queryRows<{ tx_hash: string }>(database.db, sql`SELECT tx_hash FROM claims`)).map((row) => row.tx_hash),
    );
    let writing = true;
    // Three writers, each committing claims one transaction at a time, some of several claims.
    const writers = [0, 1, 2].map(async (writer) => {
      for (let n = 0; writing; n++) {
        await database.db.transaction(async (tx) => {
          for (let k = 0; k <= n % 3; k++) await insertClaim(tx, { campaignKey: writer % 2 ? campaign.key : other.key });
        });
        // A turn of the event loop: on PGlite, which answers in this thread, the writers would otherwise starve the timers.
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    const received: ReceivedEvent[] = [];
    let lastEventId: string | undefined;
    for (let round = 0; round < 25; round++) {
      const stream = await connect('?type=claim.written', lastEventId ? { 'last-event-id': lastEventId } : {});
      expect(stream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 20 + ((round * 37) % 60)));
      await stream.close();
      received.push(...stream.events.filter((event) => event.id !== undefined));
      lastEventId = stream.lastEventId ?? lastEventId;
    }
    writing = false;
    await Promise.all(writers);
    // After the writers stopped, one last stream takes the rest.
    const last = await connect('?type=claim.written', { 'last-event-id': lastEventId! });
    const written = (await queryRows<{ tx_hash: string }>(database.db, sql`SELECT tx_hash FROM claims`)).filter((row) => !before.has(row.tx_hash));
    const firstId = received[0]!.id!;
    // Everything committed after the first event received: the claims table says which.
    const expected = new Set(
      (
        await queryRows<{ tx_hash: string }>(
          database.db,
          sql`SELECT e.data->>'txHash' AS tx_hash FROM events AS e JOIN event_commits AS c ON c.xid = e.xid
               WHERE e.type = 'claim.written' AND (c.seq, e.id) >= (${order(firstId)[0]}, ${order(firstId)[1]})`,
        )
      ).map((row) => row.tx_hash),
    );
    await last.until(() => received.length + claimsOf(last.events).length >= expected.size);
    received.push(...last.events.filter((event) => event.id !== undefined));
    const txHashes = received.map((event) => (JSON.parse(event.data) as ClaimData).txHash);
    expect(new Set(txHashes).size).toBe(txHashes.length);
    expect(new Set(txHashes)).toEqual(expected);
    expect(written.length).toBeGreaterThan(50);
    expect(written.filter((row) => expected.has(row.tx_hash)).length).toBe(expected.size);
    expect(ascending(received.map((event) => event.id!))).toBe(true);
    await last.close();
  });

  it('tells a client resuming from an event older than the retention to refetch, then goes on', async () => {
    const [{ seq } = { seq: 0 }] = await queryRows<{ seq: number }>(database.db, sql`SELECT max(seq)::float8 AS seq FROM event_commits`);
    await database.db.execute(sql`UPDATE event_retention SET pruned_through = ${seq}`);
    const stream = await connect('', { 'last-event-id': '1-1' });
    await stream.until((events) => events.some((event) => event.event === 'refetch'));
    expect((JSON.parse(stream.events[0]!.data) as { reason: string }).reason).toContain('no longer kept');
    const claim = await insertClaim(database.db, { campaignKey: campaign.key });
    await stream.until((events) => claimsOf(events).some((data) => data.txHash === claim.txHash));
    await stream.close();
  });

  it('refuses a bad Last-Event-ID or filter with a 400, and streams over the per-IP limit with a 429', async () => {
    for (const [query, headers, message] of [
      ['', { 'last-event-id': 'abc' }, 'Last-Event-ID must be an event id this service sent, <number> or <number>-<number>'],
      ['?lastEventId=1_2', {}, 'lastEventId must be an event id this service sent, <number> or <number>-<number>'],
      ['?type=claim.made', {}, 'type entry 1 must be one of: claim.written, claim.removed, draw.written, draw.removed, campaign.created, campaign.changed, campaign.removed, trending.changed, signature.issued'],
      ['?claimant=0x12', {}, 'claimant must be an address: 0x followed by 40 hexadecimal characters'],
      ['?since=1', {}, "unknown query parameter 'since'"],
    ] as const) {
      const response = await app.inject({ url: `/events${query}`, headers });
      expect(response.statusCode, query).toBe(400);
      expect(response.json<{ error: string }>().error, query).toBe(message);
    }
    const open = await Promise.all(Array.from({ length: 8 }, () => connect()));
    const refused = await connect();
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.events[0]!.data)).toEqual({ error: 'this client IP has 8 event streams open already, the most allowed' });
    await open[0]!.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await connect();
    expect(again.status).toBe(200);
    await Promise.all([...open, again].map((client) => client.close()));
  });
});
