import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { createWebhookEndpointsRepository } from '../../src/repositories/webhooks.repository.js';
import { WRITE_EVERY_MS } from '../../src/webhooks/deliverer.js';
import { SecretBox } from '../../src/webhooks/secret-box.js';
import { generateSecret } from '../../src/webhooks/signing.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { createScratchDatabase, migrateAndSeed, postgresAdminUrl, type ScratchDatabase, SKIP_WITHOUT_POSTGRES, withClient } from './helpers/postgres.js';
import { type ServerProcess, sleep, startServer } from './helpers/server-process.js';

/**
 * Webhook delivery by the built server, as processes: one killed with SIGKILL mid-batch and another
 * started after it (nothing lost; what was in flight comes again with the same webhook-id), and two
 * servers delivering side by side (each message once). Receivers verify every message with the
 * official standardwebhooks package.
 */
const adminUrl = postgresAdminUrl();
/** Server processes started, one killed and its lease left to run out (the time-out plus 10 s). */
const PROCESSES_TIMEOUT_MS = 150_000;
if (!adminUrl) console.warn(SKIP_WITHOUT_POSTGRES);

describe.skipIf(!adminUrl)('black box: webhook delivery by server processes', () => {
  let database: ScratchDatabase;
  const key = randomBytes(32).toString('base64');
  const servers: ServerProcess[] = [];
  const receivers: WebhookReceiver[] = [];

  const serverEnv = () => ({
    DATABASE_URL: database.url,
    MIGRATE_ON_START: 'false',
    WEBHOOK_SECRET_KEY: key,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '20',
    // The lease of a killed server runs out this much (plus 10 s) after its last write.
    WEBHOOK_TIMEOUT_MS: '2000',
  });

  /** `count` endpoints, each with a receiver holding its secret. */
  const endpoints = async (count: number) => {
    const handle = await openDatabase({ DATABASE_URL: database.url, PGLITE_DATA_DIR: 'memory://', DB_POOL_MAX: 1, DB_STATEMENT_TIMEOUT_MS: 10_000, DB_CONNECT_TIMEOUT_MS: 5000 });
    try {
      const repository = createWebhookEndpointsRepository(handle.db);
      const added: WebhookReceiver[] = [];
      for (let n = 0; n < count; n++) {
        const receiver = new WebhookReceiver();
        receiver.secret = generateSecret();
        const url = await receiver.listen();
        await repository.add({ url, description: null, types: null, chainIds: null, campaignIds: null, claimant: null, sealedSecret: new SecretBox(key).seal(receiver.secret) });
        receivers.push(receiver);
        added.push(receiver);
      }
      return added;
    } finally {
      await handle.close();
    }
  };

  let nextClaim = 0x500000;
  /** `transactions` transactions of `perTransaction` claims each, of a demo campaign. */
  const writeClaims = (transactions: number, perTransaction: number) =>
    withClient(database.url, async (client) => {
      for (let n = 0; n < transactions; n++) {
        const first = nextClaim;
        nextClaim += perTransaction;
        await client.query(
          `INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index)
           SELECT i.campaign_key, i.position, '0x' || lpad(to_hex(g), 40, '0'), 1000, 1, 1, '0x' || lpad(to_hex(g), 64, '0'), now(), c.chain_id, 0
             FROM (SELECT campaign_key, position FROM incentives WHERE position = 0 ORDER BY campaign_key LIMIT 1) AS i
             JOIN campaigns AS c ON c.key = i.campaign_key
            CROSS JOIN generate_series($1::int, $2::int) AS g`,
          [first, first + perTransaction - 1],
        );
      }
    });
  const loggedIds = (afterSeq: number) =>
    withClient(database.url, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `SELECT c.seq || '-' || e.id AS id FROM event_commits AS c JOIN events AS e ON e.xid = c.xid WHERE c.seq > $1 ORDER BY c.seq, e.id`,
        [afterSeq],
      );
      return rows.map((row) => row.id);
    });
  const head = () =>
    withClient(database.url, async (client) => Number((await client.query<{ seq: string }>('SELECT coalesce(max(seq), 0) AS seq FROM event_commits')).rows[0]!.seq));

  beforeAll(async () => {
    database = await createScratchDatabase(adminUrl!);
    await migrateAndSeed(database.url);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop(2000)));
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    await withClient(database.url, (client) => client.query('DELETE FROM webhook_endpoints'));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('a server killed mid-batch loses nothing: the next one sends the rest, what it sent in its last second again with the same webhook-ids', async () => {
    const start = await head();
    const targets = await endpoints(2);
    // Slow receivers, so that the kill finds messages in flight.
    for (const target of targets) target.answer = () => ({ status: 204, delayMs: 5 });
    await writeClaims(40, 5);
    const expected = await loggedIds(start);
    expect(expected.length).toBeGreaterThanOrEqual(200);

    const first = await startServer(serverEnv());
    servers.push(first);
    await targets[0]!.until((messages) => messages.length >= 40, 30_000);
    const killedAt = Date.now();
    process.kill(first.pid, 'SIGKILL');
    await first.exited;
    const beforeRestart = targets.map((target) => target.messages.length);
    expect(beforeRestart.every((count) => count < expected.length)).toBe(true);

    servers.push(await startServer(serverEnv()));
    for (const target of targets) {
      await target.until((messages) => new Set(messages.map((message) => message.id)).size >= expected.length, 60_000);
      expect(target.firstIds).toEqual(expected);
      expect(target.messages.every((message) => message.verified)).toBe(true);
      // A server writes an endpoint's position at most a second apart while it sends: what comes twice is
      // what the killed one sent since its last write that committed (two intervals back, if it died
      // writing), each once more, never older.
      const arrivals = new Map<string, number[]>();
      for (const message of target.messages) arrivals.set(message.id, [...(arrivals.get(message.id) ?? []), message.receivedAt]);
      for (const [id, times] of arrivals) {
        expect(times.length, id).toBeLessThanOrEqual(2);
        if (times.length === 2) expect(killedAt - times[0]!, id).toBeLessThanOrEqual(2 * WRITE_EVERY_MS + 1000);
      }
      // In order: each message is followed by the next event, but once, where the second server goes on from the
      // position the first wrote.
      const ids = target.messages.map((message) => message.id);
      const steps = ids.slice(1).map((id, index) => expected.indexOf(id) - expected.indexOf(ids[index]!));
      expect(steps.filter((step) => step !== 1).length).toBeLessThanOrEqual(1);
    }
  }, PROCESSES_TIMEOUT_MS);

  it('two servers side by side deliver every message once, in order, each counted once between them', async () => {
    const start = await head();
    const targets = await endpoints(4);
    servers.push(...(await Promise.all([startServer(serverEnv()), startServer(serverEnv())])));
    await writeClaims(30, 3);
    await sleep(200);
    await writeClaims(30, 3);
    const expected = await loggedIds(start);
    for (const target of targets) {
      await target.until((messages) => messages.length >= expected.length, 60_000);
      expect(target.messages.map((message) => message.id)).toEqual(expected);
      expect(target.messages.every((message) => message.verified)).toBe(true);
    }
    // No message twice: the two processes' counts add up to the messages.
    const delivered = await Promise.all(
      servers.map(async (server) => {
        const metrics = await (await fetch(`${server.url}/metrics`)).text();
        return Number(/webhook_deliveries_total\{outcome="delivered"\} ([0-9]+)/.exec(metrics)?.[1] ?? 0);
      }),
    );
    expect(delivered.reduce((sum, count) => sum + count, 0)).toBe(expected.length * targets.length);
  }, PROCESSES_TIMEOUT_MS);
});
