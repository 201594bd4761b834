import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import { Registry } from 'prom-client';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { registerWebhookMetrics } from '../../src/plugins/webhooks.js';
import {
  createWebhookDeliveryRepository,
  createWebhookEndpointsRepository,
  type WebhookFilters,
} from '../../src/repositories/webhooks.repository.js';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.js';
import { SecretBox } from '../../src/webhooks/secret-box.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { generateSecret } from '../../src/webhooks/signing.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertClaim, insertToken } from '../helpers/factories.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Webhook delivery against real PostgreSQL and real HTTP receivers, each of which verifies every
 * message with the official `standardwebhooks` package.
 */
describe('webhook delivery', () => {
  let database: TestDatabase;
  const key = randomBytes(32).toString('base64');
  const box = new SecretBox(key);
  let campaigns: { key: number; id: string }[];
  const receivers: WebhookReceiver[] = [];
  const deliverers: WebhookDeliverer[] = [];
  const warnings: { details: object; message: string }[] = [];
  const errors: { details: object; message: string }[] = [];

  const endpoints = () => createWebhookEndpointsRepository(database.db);
  const delivery = () => createWebhookDeliveryRepository(database.db);

  /** An endpoint at `url` (from now on), and the secret its receiver verifies with. */
  const addEndpoint = async (url: string, filters: Partial<WebhookFilters> = {}) => {
    const secret = generateSecret();
    const endpoint = await endpoints().add({
      url,
      description: null,
      types: null,
      chainIds: null,
      campaignIds: null,
      claimant: null,
      ...filters,
      sealedSecret: box.seal(secret),
    });
    return { id: endpoint.id, secret };
  };

  const receiver = async (secret: string, port = 0) => {
    const created = new WebhookReceiver();
    created.secret = secret;
    receivers.push(created);
    return { receiver: created, url: await created.listen(port) };
  };

  const deliverer = (overrides: Partial<ConstructorParameters<typeof WebhookDeliverer>[0]> = {}) => {
    const timeoutMs = overrides.timeoutMs ?? 2000;
    const created = new WebhookDeliverer({
      repository: delivery(),
      secretBox: box,
      sender: new WebhookSender({ timeoutMs, allowPrivate: true }),
      concurrency: 8,
      pollMs: 20,
      timeoutMs,
      disableAfterSeconds: 3600,
      retentionSeconds: 259_200,
      logger: { warn: (details, message) => warnings.push({ details, message }), error: (details, message) => errors.push({ details, message }) },
      random: () => 0,
      ...overrides,
    });
    deliverers.push(created);
    created.start();
    return created;
  };

  /** The ids of the committed events after `fromSeq` that `where` takes, in commit order. */
  const loggedIds = async (fromSeq: number, where = sql`true`) =>
    (
      await queryRows<{ id: string }>(
        database.db,
        sql`SELECT c.seq || '-' || e.id AS id FROM event_commits AS c JOIN events AS e ON e.xid = c.xid
             WHERE c.seq > ${fromSeq} AND ${where} ORDER BY c.seq, e.id`,
      )
    ).map((row) => row.id);
  const head = async () =>
    (await queryRows<{ seq: number }>(database.db, sql`SELECT coalesce(max(seq), 0)::float8 AS seq FROM event_commits`))[0]!.seq;
  /** Moves the endpoint's next attempt to now: the backoff's wait, passed. */
  const due = (id: number) => database.db.execute(sql`UPDATE webhook_endpoints SET next_attempt_at = now() WHERE id = ${id}`);
  const failedAttempts = (id: number) => endpoints().attempts(id, 100);
  const endpointRow = async (id: number) => (await endpoints().get(id))!;

  beforeAll(async () => {
    database = await createTestDatabase();
    const token = await insertToken(database.db);
    campaigns = [];
    for (let n = 0; n < 2; n++) {
      const campaign = await insertCampaign(database.db, { incentives: [erc20Incentive(token.address, '1000000000000', '1')] });
      campaigns.push({ key: campaign.key, id: campaign.publicId });
    }
  });
  afterEach(async () => {
    await Promise.all(deliverers.splice(0).map((created) => created.close()));
    await Promise.all(receivers.splice(0).map((created) => created.close()));
    await database.db.execute(sql`DELETE FROM webhook_endpoints`);
    warnings.length = 0;
    // A deliverer logs an error only for what should not happen: a failure of its own, not a receiver's.
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(() => database?.close());

  it('sends every event in commit order, once, as Standard Webhooks messages the official library verifies, each endpoint through its filters', async () => {
    const start = await head();
    const everything = await addEndpoint('http://placeholder/');
    const filtered = await addEndpoint('http://placeholder/', { types: ['claim.written'], campaignIds: [campaigns[1]!.id] });
    const wrong = await addEndpoint('http://placeholder/');
    const all = await receiver(everything.secret);
    const some = await receiver(filtered.secret);
    const refusing = await receiver(generateSecret());
    await endpoints().update(everything.id, { url: all.url });
    await endpoints().update(filtered.id, { url: some.url });
    await endpoints().update(wrong.id, { url: refusing.url });
    deliverer();

    for (let n = 0; n < 4; n++) await insertClaim(database.db, { campaignKey: campaigns[n % 2]!.key });
    await insertCampaign(database.db);
    const expected = await loggedIds(start);
    const expectedFiltered = await loggedIds(start, sql`e.type = 'claim.written' AND e.campaign_id = ${campaigns[1]!.id}`);
    expect(expected.length).toBeGreaterThan(expectedFiltered.length);
    expect(expectedFiltered).toHaveLength(2);

    await all.receiver.until((messages) => messages.length >= expected.length);
    await some.receiver.until((messages) => messages.length >= expectedFiltered.length);
    await refusing.receiver.until((messages) => messages.length >= expected.length);
    expect(all.receiver.messages.map((message) => message.id)).toEqual(expected);
    expect(some.receiver.messages.map((message) => message.id)).toEqual(expectedFiltered);
    expect(all.receiver.messages.every((message) => message.verified)).toBe(true);
    expect(some.receiver.messages.every((message) => message.verified)).toBe(true);
    // Signed with another secret than the one the receiver holds: it refuses every message.
    expect(refusing.receiver.messages.some((message) => message.verified)).toBe(false);

    const [first] = all.receiver.messages;
    const body = JSON.parse(first!.body) as { type: string; timestamp: string; data: Record<string, unknown> };
    const [stored] = await queryRows<{ type: string; data: Record<string, unknown> }>(
      database.db,
      sql`SELECT e.type, e.data FROM events AS e JOIN event_commits AS c ON c.xid = e.xid WHERE c.seq || '-' || e.id = ${first!.id}`,
    );
    expect(body.type).toBe(stored!.type);
    expect(body.data).toEqual(stored!.data);
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect(first!.headers['content-type']).toBe('application/json');
    expect(Number(first!.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(first!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    // Everything delivered (written down once the receiver has answered): nothing failed.
    await waitFor(async () => (await endpointRow(everything.id)).lastDeliveredId === expected.at(-1));
    expect(await failedAttempts(everything.id)).toEqual([]);
  });

  it("sends a bulk write's refetch to every endpoint, whatever its filters", async () => {
    const endpoint = await addEndpoint('http://placeholder/', { types: ['claim.written'], claimant: `0x${'ab'.repeat(20)}` });
    const { receiver: target, url } = await receiver(endpoint.secret);
    await endpoints().update(endpoint.id, { url });
    deliverer();
    await database.db.transaction(async (tx) => {
      // A bulk load: derived state deferred, one refetch for what the statement wrote.
      await tx.execute(sql`SELECT set_config('campaign_service.defer_refresh', 'on', true)`);
      await insertClaim(tx, { campaignKey: campaigns[0]!.key });
    });
    await target.until((messages) => messages.length >= 1);
    expect(target.messages.map((message) => JSON.parse(message.body) as { type: string; data: { reason: string } })).toEqual([
      expect.objectContaining({ type: 'refetch', data: { reason: 'claims were rewritten in bulk' } }),
    ]);
    await database.db.execute(sql`SELECT recompute_claim_history()`);
  });

  it('keeps what a receiver that is down missed, and sends it all in order once it is up', async () => {
    // A port with nothing listening on it: connections are refused.
    const port = await freePort();
    const endpoint = await addEndpoint(`http://127.0.0.1:${port}/hooks`);
    const start = (await endpointRow(endpoint.id)).cursor.seq;
    deliverer();
    for (let n = 0; n < 3; n++) await insertClaim(database.db, { campaignKey: campaigns[0]!.key });
    await waitFor(async () => (await failedAttempts(endpoint.id)).length >= 1);
    const [attempt] = await failedAttempts(endpoint.id);
    const expected = await loggedIds(start);
    expect(attempt!.eventId).toBe(expected[0]);
    expect(attempt!.status).toBeNull();
    expect(attempt!.error).toMatch(/ECONNREFUSED/);
    // The first retry waits 5 s (no jitter drawn here).
    expect(attempt!.nextAttemptAt!.getTime() - attempt!.attemptedAt.getTime()).toBeGreaterThan(4_500);

    const up = await receiver(endpoint.secret, port);
    for (let n = 0; n < 2; n++) await insertClaim(database.db, { campaignKey: campaigns[0]!.key });
    await due(endpoint.id);
    const all = await loggedIds(start);
    await up.receiver.until((messages) => messages.length >= all.length);
    expect(up.receiver.messages.map((message) => message.id)).toEqual(all);
    expect(up.receiver.messages.every((message) => message.verified)).toBe(true);
    // The visit writes its position, and forgets the failures, once it has sent the last message: after the receiver has it.
    await waitFor(async () => (await endpointRow(endpoint.id)).attempts === 0);
    expect((await endpointRow(endpoint.id)).failingSince).toBeNull();
  });

  it("honours a 429's Retry-After, backs off after a 500, counts a time-out as a failure, and repeats the message with the same webhook-id", async () => {
    const endpoint = await addEndpoint('http://placeholder/');
    const { receiver: target, url } = await receiver(endpoint.secret);
    await endpoints().update(endpoint.id, { url });
    const answers: ReturnType<WebhookReceiver['answer']>[] = [{ status: 429, headers: { 'retry-after': '120' } }, { status: 500 }, 'hang'];
    target.answer = () => answers.shift() ?? { status: 200 };
    deliverer({ timeoutMs: 500 });
    const claim = await insertClaim(database.db, { campaignKey: campaigns[0]!.key });

    await waitFor(async () => (await failedAttempts(endpoint.id)).length === 1);
    let [attempt] = await failedAttempts(endpoint.id);
    expect(attempt!.status).toBe(429);
    expect(Math.round((attempt!.nextAttemptAt!.getTime() - attempt!.attemptedAt.getTime()) / 1000)).toBe(120);

    await due(endpoint.id);
    await waitFor(async () => (await failedAttempts(endpoint.id)).length === 2);
    [attempt] = await failedAttempts(endpoint.id);
    expect(attempt!.status).toBe(500);
    // The second failure at the message: 10 s.
    expect(Math.round((attempt!.nextAttemptAt!.getTime() - attempt!.attemptedAt.getTime()) / 1000)).toBe(10);

    await due(endpoint.id);
    await waitFor(async () => (await failedAttempts(endpoint.id)).length === 3);
    [attempt] = await failedAttempts(endpoint.id);
    expect(attempt!.status).toBeNull();
    expect(attempt!.error).toBe('no answer within 500 ms');
    expect((await endpointRow(endpoint.id)).attempts).toBe(3);

    await due(endpoint.id);
    await target.until((messages) => messages.length >= 4);
    // Four attempts at the first event, then the claim's other events.
    const ids = target.messages.slice(0, 4).map((message) => message.id);
    expect(new Set(ids).size).toBe(1);
    expect(target.messages[4]?.id).not.toBe(ids[0]);
    expect((JSON.parse(target.messages[3]!.body) as { data: { txHash: string } }).data.txHash).toBe(claim.txHash);
    await waitFor(async () => (await endpointRow(endpoint.id)).attempts === 0);
    expect((await endpointRow(endpoint.id)).failingSince).toBeNull();
  });

  it('disables an endpoint that answers 410, and one failing past WEBHOOK_DISABLE_AFTER; the log and /metrics say so', async () => {
    const gone = await addEndpoint('http://placeholder/');
    const failing = await addEndpoint('http://placeholder/');
    const goneReceiver = await receiver(gone.secret);
    const failingReceiver = await receiver(failing.secret);
    goneReceiver.receiver.answer = () => ({ status: 410 });
    failingReceiver.receiver.answer = () => ({ status: 503 });
    await endpoints().update(gone.id, { url: goneReceiver.url });
    await endpoints().update(failing.id, { url: failingReceiver.url });
    // Failing for two hours already, with an hour allowed.
    await database.db.execute(sql`UPDATE webhook_endpoints SET failing_since = now() - interval '2 hours', attempts = 12 WHERE id = ${failing.id}`);
    const registry = new Registry();
    const running = deliverer();
    registerWebhookMetrics(registry, running, delivery());
    await insertClaim(database.db, { campaignKey: campaigns[0]!.key });

    await waitFor(async () => !(await endpointRow(gone.id)).enabled && !(await endpointRow(failing.id)).enabled);
    expect((await endpointRow(gone.id)).disabledReason).toBe('the endpoint answered 410 Gone');
    expect((await endpointRow(failing.id)).disabledReason).toMatch(/^every attempt failed since .* \(WEBHOOK_DISABLE_AFTER\)$/);
    expect(warnings.map((warning) => (warning.details as { endpoint: number }).endpoint).sort()).toEqual([gone.id, failing.id].sort());
    expect(JSON.stringify(warnings)).not.toContain('/hooks');
    expect(JSON.stringify(warnings)).not.toContain('whsec_');
    const metrics = await registry.metrics();
    expect(metrics).toContain('webhook_endpoints_disabled 2');
    expect(metrics).toContain('webhook_deliveries_total{outcome="rejected"} 2');

    // A disabled endpoint gets nothing more, and enabling it resumes where it stopped.
    const before = goneReceiver.receiver.messages.length;
    goneReceiver.receiver.answer = () => ({ status: 204 });
    await insertClaim(database.db, { campaignKey: campaigns[0]!.key });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(goneReceiver.receiver.messages).toHaveLength(before);
    await endpoints().setEnabled(gone.id, true, '');
    await goneReceiver.receiver.until((messages) => messages.length > before);
    expect(goneReceiver.receiver.messages[before]!.id).toBe(goneReceiver.receiver.messages[0]!.id);
  });

  it('signs with the old and the new secret while a secret is rotated: a receiver holding either verifies', async () => {
    const endpoint = await addEndpoint('http://placeholder/');
    const { receiver: target, url } = await receiver(endpoint.secret);
    await endpoints().update(endpoint.id, { url });
    const rotated = generateSecret();
    await endpoints().rotateSecret(endpoint.id, box.seal(rotated), new Date(Date.now() + 3_600_000));
    deliverer();
    await insertClaim(database.db, { campaignKey: campaigns[0]!.key });
    await target.until((messages) => messages.length >= 1);
    const [message] = target.messages;
    expect(String(message!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(message!.verified).toBe(true);
    expect(() => new Webhook(rotated).verify(message!.body, message!.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(generateSecret()).verify(message!.body, message!.headers as Record<string, string>)).toThrow();

    // Once the rotation is over, the new secret alone signs.
    await database.db.execute(sql`UPDATE webhook_endpoints SET previous_secret_until = now() - interval '1 second' WHERE id = ${endpoint.id}`);
    await target.until((messages) => messages.length >= 2);
    const before = target.messages.length;
    target.secret = rotated;
    await insertClaim(database.db, { campaignKey: campaigns[0]!.key });
    await target.until((messages) => messages.length > before);
    expect(String(target.messages[before]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(target.messages[before]!.verified).toBe(true);
  });

  it('shares the endpoints between two deliverers: every message arrives once, in order', async () => {
    const added = [];
    for (let n = 0; n < 6; n++) {
      const endpoint = await addEndpoint('http://placeholder/');
      const created = await receiver(endpoint.secret);
      await endpoints().update(endpoint.id, { url: created.url });
      added.push(created.receiver);
    }
    const start = (await endpointRow((await endpoints().list())[0]!.id)).cursor.seq;
    deliverer({ owner: 'first' });
    deliverer({ owner: 'second' });
    const writes = [];
    for (let n = 0; n < 30; n++) writes.push(insertClaim(database.db, { campaignKey: campaigns[n % 2]!.key }));
    await Promise.all(writes);
    const expected = await loggedIds(start);
    expect(expected.length).toBeGreaterThanOrEqual(30);
    for (const target of added) {
      await target.until((messages) => messages.length >= expected.length);
      expect(target.messages.map((message) => message.id)).toEqual(expected);
    }
  });

  it('keeps the events an endpoint has not had past the 15 minutes, and past WEBHOOK_MAX_RETENTION sends it a refetch, then what follows', async () => {
    const endpoint = await addEndpoint('http://placeholder/');
    const { receiver: target, url } = await receiver(endpoint.secret);
    await endpoints().update(endpoint.id, { url });
    target.answer = () => ({ status: 503 });
    deliverer();
    await insertClaim(database.db, { campaignKey: campaigns[0]!.key });
    await waitFor(async () => (await failedAttempts(endpoint.id)).length >= 1);
    const held = (await endpointRow(endpoint.id)).cursor.seq;

    /** Ages every commit by `age`, and lets the next commit prune (it does once a minute). */
    const ageAndPrune = async (age: string) => {
      await database.db.execute(sql`UPDATE event_commits SET committed_at = now() - ${age}::interval`);
      await database.db.execute(sql`UPDATE event_retention SET pruned_at = now() - interval '2 minutes'`);
      await insertClaim(database.db, { campaignKey: campaigns[1]!.key });
    };
    const prunedThrough = async () =>
      (await queryRows<{ seq: number }>(database.db, sql`SELECT pruned_through::float8 AS seq FROM event_retention`))[0]!.seq;

    await ageAndPrune('20 minutes');
    expect(await prunedThrough()).toBeLessThanOrEqual(held);
    expect(await loggedIds(held)).not.toEqual([]);

    await ageAndPrune('4 days');
    const horizon = await prunedThrough();
    expect(horizon).toBeGreaterThan(held);
    const kept = await loggedIds(horizon);
    const before = target.messages.length;
    target.answer = () => ({ status: 204 });
    await due(endpoint.id);
    await target.until((messages) => messages.length >= before + 1 + kept.length);
    const delivered = target.messages.slice(before);
    expect(delivered.every((message) => message.verified)).toBe(true);
    expect(JSON.parse(delivered[0]!.body)).toMatchObject({ type: 'refetch', data: { reason: expect.stringContaining(`events through ${horizon}`) as unknown } });
    expect(delivered[0]!.id).toBe(String(horizon));
    expect(delivered.slice(1).map((message) => message.id)).toEqual(kept);
  });

  it('refuses to send to an address that resolves to loopback, or is one, unless WEBHOOK_ALLOW_PRIVATE', async () => {
    const byName = await addEndpoint('http://placeholder/');
    const byAddress = await addEndpoint('http://placeholder/');
    const nameTarget = await receiver(byName.secret);
    const addressTarget = await receiver(byAddress.secret);
    await endpoints().update(byName.id, { url: `http://localhost:${nameTarget.receiver.port}/hooks` });
    await endpoints().update(byAddress.id, { url: addressTarget.url });
    deliverer({ sender: new WebhookSender({ timeoutMs: 2000, allowPrivate: false }) });
    await insertClaim(database.db, { campaignKey: campaigns[0]!.key });
    await waitFor(async () => (await failedAttempts(byName.id)).length >= 1 && (await failedAttempts(byAddress.id)).length >= 1);
    expect((await failedAttempts(byName.id))[0]!.error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect((await failedAttempts(byAddress.id))[0]!.error).toMatch(/^127\.0\.0\.1 is a loopback address/);
    expect(nameTarget.receiver.messages).toEqual([]);
    expect(addressTarget.receiver.messages).toEqual([]);
  });

  it('runs in the app from the WEBHOOK_* settings, and /metrics reports deliveries and lag', async () => {
    const endpoint = await addEndpoint('http://placeholder/');
    const { receiver: target, url } = await receiver(endpoint.secret);
    await endpoints().update(endpoint.id, { url });
    const app = await buildTestApp(database, { WEBHOOK_SECRET_KEY: key, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' });
    try {
      await insertClaim(database.db, { campaignKey: campaigns[0]!.key });
      await target.until((messages) => messages.length >= 1);
      expect(target.messages[0]!.verified).toBe(true);
      // Counted once the receiver's answer is back, a moment after the message arrived.
      await waitFor(async () => (await endpointRow(endpoint.id)).lastDeliveredId !== null);
      const metrics = (await app.inject({ url: '/metrics' })).body;
      expect(metrics).toMatch(/webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
      expect(metrics).toMatch(new RegExp(`webhook_endpoint_lag_seconds\\{endpoint="${endpoint.id}"\\} [0-9.]+`));
    } finally {
      await app.close();
    }
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A port nothing listens on (one the system just handed out and took back). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
