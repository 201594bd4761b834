import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { openDatabase } from '../src/db/client.js';
import { migratePostgres } from '../src/db/migrate.js';
import { prepareDemo } from '../src/demo.js';
import { createWebhookEndpointsRepository } from '../src/repositories/webhooks.repository.js';
import { SecretBox } from '../src/webhooks/secret-box.js';
import { generateSecret } from '../src/webhooks/signing.js';
import { campaignReads, freePort, start, stop } from './processes.js';

/**
 * `npm run bench:webhooks`: webhook delivery by the built server, to receivers in this process
 * (which answer 204 at once and note when each message arrived; the tests verify signatures).
 *
 *   live        --endpoints endpoints, each following one campaign's claims, while claims are written
 *               at --rate a second (each its own transaction) for --duration seconds: commit to
 *               delivery (the message's own timestamp, its commit, to its arrival), and the reads
 *               (the campaign list and a campaign) beside it, against the same reads beside the same
 *               writes just before, with the endpoints disabled
 *   backlog     --backlog-endpoints endpoints taking every claim.written, disabled while
 *               --backlog-claims claims are written, then enabled at once: deliveries a second until
 *               each has them all
 *
 * Targets: live p99 at most 1 s with nothing lost, reads keeping at least 0.8 of their throughput;
 * backlog at least 2,000 deliveries a second.
 */

const { values } = parseArgs({
  options: {
    endpoints: { type: 'string', default: '100' },
    rate: { type: 'string', default: '200' },
    duration: { type: 'string', default: '20' },
    'backlog-endpoints': { type: 'string', default: '20' },
    'backlog-claims': { type: 'string', default: '2000' },
    connections: { type: 'string', default: '10' },
  },
});
const endpointCount = Number(values.endpoints);
const rate = Number(values.rate);
const duration = Number(values.duration);
const backlogEndpoints = Number(values['backlog-endpoints']);
const backlogClaims = Number(values['backlog-claims']);
const connections = Number(values.connections);
const log = (line: string) => process.stdout.write(`${line}\n`);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = 'campaigns_bench_webhooks';
const key = randomBytes(32).toString('base64');
const box = new SecretBox(key);

// The database: migrated, the demo data set (300 campaigns), no endpoint yet.
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${DATABASE}`);
await admin.end();
const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${DATABASE}` }).toString();
await migratePostgres(url);
const database = await openDatabase({ DATABASE_URL: url, PGLITE_DATA_DIR: 'memory://', DB_POOL_MAX: 4, DB_STATEMENT_TIMEOUT_MS: 600_000, DB_CONNECT_TIMEOUT_MS: 5000 });
await prepareDemo(database, pino({ level: 'silent' }));
const client = new pg.Client({ connectionString: url });
await client.connect();
const targets = (
  await client.query<{ key: number; public_id: string; chain_id: number }>(
    `SELECT c.key, c.public_id, c.chain_id FROM campaigns AS c WHERE EXISTS (SELECT 1 FROM incentives AS i WHERE i.campaign_key = c.key AND i.position = 0)
      ORDER BY c.key LIMIT $1`,
    [Math.max(endpointCount, 1)],
  )
).rows;

// The receivers: one server, a path per endpoint; each message's delay from its commit.
const arrivals = new Map<string, number[]>();
const receiver = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const arrived = Date.now();
    const { timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
    const path = request.url!;
    let delays = arrivals.get(path);
    if (!delays) arrivals.set(path, (delays = []));
    delays.push(arrived - Date.parse(timestamp));
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
const delivered = () => [...arrivals.values()].reduce((sum, delays) => sum + delays.length, 0);

const endpoints = createWebhookEndpointsRepository(database.db);
const add = (path: string, filters: { types: string[]; campaignIds: string[] | null }) =>
  endpoints.add({ url: `${receiverBase}${path}`, description: null, chainIds: null, claimant: null, ...filters, sealedSecret: box.seal(generateSecret()) });
const live = [];
for (const [index, campaign] of targets.slice(0, endpointCount).entries()) live.push(await add(`/live/${index}`, { types: ['claim.written'], campaignIds: [campaign.public_id] }));

const port = await freePort();
const server = await start(
  process.execPath,
  ['dist/server.js'],
  {
    PORT: String(port),
    DATABASE_URL: url,
    DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '0',
    RESPONSE_CACHE_TTL_MS: '0',
    WEBHOOK_SECRET_KEY: key,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_CONCURRENCY: String(Math.max(endpointCount, backlogEndpoints)),
  },
  `http://127.0.0.1:${port}/health/ready`,
);
const base = `http://127.0.0.1:${port}`;

let nextClaim = 0x700000;
/** One claim of `campaign` in a transaction of its own, as the indexer writes a block's. */
const writeClaim = (campaign: { key: number; chain_id: number }, count = 1) => {
  const first = nextClaim;
  nextClaim += count;
  return client.query(
    `INSERT INTO claims (campaign_key, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, claimed_at, chain_id, log_index)
     SELECT $1, 0, '0x' || lpad(to_hex(g), 40, '0'), 1000, 1, 1, '0x' || lpad(to_hex(g), 64, '0'), now(), $2, 0 FROM generate_series($3::int, $4::int) AS g`,
    [campaign.key, campaign.chain_id, first, first + count - 1],
  );
};

const reads = (seconds: number) => campaignReads(base, targets[0]!.public_id, connections, seconds);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** Claims at `rate` a second for `seconds`, round robin over the endpoints' campaigns, each its own transaction. */
async function writeAtRate(seconds: number) {
  const total = rate * seconds;
  const started = Date.now();
  for (let n = 0; n < total; n++) {
    const wait = started + (n * 1000) / rate - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await writeClaim(targets[n % targets.length]!);
  }
  return { total, seconds: (Date.now() - started) / 1000 };
}

try {
  // Without webhooks: the reads beside the same writes, the endpoints disabled (the baseline).
  for (const endpoint of live) await endpoints.setEnabled(endpoint.id, false, 'benchmark');
  const [, without] = await Promise.all([writeAtRate(duration), reads(duration)]);
  for (const endpoint of live) await endpoints.setEnabled(endpoint.id, true, '');
  // Whatever the baseline's writes left behind goes first: the endpoints start at the head.
  await client.query('UPDATE webhook_endpoints SET cursor_seq = (SELECT max(seq) FROM event_commits), cursor_id = $1', [Number.MAX_SAFE_INTEGER]);

  const [written, beside] = await Promise.all([writeAtRate(duration), reads(duration)]);
  const total = written.total;
  const deadline = Date.now() + 30_000;
  while (delivered() < total && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const delays = [...arrivals.values()].flat().sort((a, b) => a - b);
  const ratio = beside.rps / without.rps;
  log(
    `live: ${endpointCount} endpoints, ${total} claims in ${written.seconds.toFixed(1)} s (${Math.round(total / written.seconds)}/s); delivered ${delays.length}; ` +
      `commit to delivery p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms, max ${delays.at(-1)} ms; ` +
      `reads beside the writes ${without.rps} req/s without webhooks, ${beside.rps} with (x${ratio.toFixed(2)}), errors ${beside.errors}`,
  );

  // Backlog: endpoints taking every claim, held back while the claims are written, then let go.
  for (const endpoint of live) await endpoints.setEnabled(endpoint.id, false, 'benchmark');
  arrivals.clear();
  const backlog = [];
  for (let index = 0; index < backlogEndpoints; index++) backlog.push(await add(`/backlog/${index}`, { types: ['claim.written'], campaignIds: null }));
  for (const endpoint of backlog) await endpoints.setEnabled(endpoint.id, false, 'benchmark');
  for (let written = 0; written < backlogClaims; written += 100) await writeClaim(targets[0]!, Math.min(100, backlogClaims - written));
  const expected = backlogEndpoints * backlogClaims;
  const released = Date.now();
  for (const endpoint of backlog) await endpoints.setEnabled(endpoint.id, true, '');
  const backlogDeadline = Date.now() + 300_000;
  while (delivered() < expected && Date.now() < backlogDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const backlogSeconds = (Date.now() - released) / 1000;
  const perSecond = Math.round(delivered() / backlogSeconds);
  log(`backlog: ${backlogEndpoints} endpoints x ${backlogClaims} claims = ${delivered()} of ${expected} delivered in ${backlogSeconds.toFixed(1)} s: ${perSecond} deliveries/s`);

  const checks = [
    [`live p99 ${percentile(delays, 99)} ms <= 1000, ${delays.length} of ${total} delivered`, percentile(delays, 99) <= 1000 && delays.length === total],
    [`reads beside x${ratio.toFixed(2)} >= 0.8`, ratio >= 0.8 && beside.errors === 0],
    [`backlog ${perSecond} deliveries/s >= 2000`, perSecond >= 2000 && delivered() === expected],
  ] as const;
  for (const [text, pass] of checks) log(`${pass ? 'PASS' : 'FAIL'}  ${text}`);
  process.exitCode = checks.every(([, pass]) => pass) ? 0 : 1;
} finally {
  await stop(server);
  await client.end();
  await database.close();
  receiver.close();
}
