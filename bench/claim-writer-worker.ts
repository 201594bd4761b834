import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import type { ClaimWriterReport } from './claim-writer.js';

/**
 * The claim writer's loop (see claim-writer.ts), on a thread of its own: on the load generator's
 * thread its timers and its driver's callbacks delayed the reading of answers, which counted as
 * latency of the service under test.
 */
const { url, ratePerSecond } = workerData as { url: string; ratePerSecond: number };

/** Connections the writer spreads its transactions over, so that one slow commit does not stall the rate. */
const CONNECTIONS = 4;

const clients = await Promise.all(
  Array.from({ length: CONNECTIONS }, async () => {
    const client = new pg.Client({ connectionString: url, application_name: 'bench-claim-writer' });
    await client.connect();
    return client;
  }),
);
const { rows: targets } = await clients[0]!.query<{ campaign_key: number; position: number }>(
  `SELECT campaign_key, position FROM incentives TABLESAMPLE SYSTEM (5) LIMIT 5000`,
);
if (targets.length === 0) throw new Error('the benchmark database has no incentives to claim from');

const latencies: number[] = [];
let errors = 0;
let sequence = 0;
const idle = [...clients];
const inFlight = new Set<Promise<void>>();
const write = async (client: pg.Client) => {
  const target = targets[Math.floor(Math.random() * targets.length)]!;
  const started = performance.now();
  sequence++;
  try {
    await client.query({
      // Prepared once per connection, as an indexer's one hot statement is: parsed and planned per
      // claim it cost PostgreSQL about 0.35 ms more a claim (2.0 against 1.65 ms of CPU at 200 claims/s).
      name: 'bench-claim-insert',
      text: `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
       VALUES ($1, (SELECT chain_id FROM campaigns WHERE key = $1), $2, $3, $4, $5, 0, $6, 0, now())`,
      values: [
        target.campaign_key,
        target.position,
        `0x${(0xbe0000 + (sequence % 65536)).toString(16).padStart(40, '0')}`,
        String(1 + Math.floor(Math.random() * 1_000_000)),
        (Math.random() * 100).toFixed(6),
        // A transaction hash of its own per claim and per run: the natural key is (chain, transaction, log index).
        `0x${(Date.now() * 1000 + (sequence % 1000)).toString(16).padStart(64, '0')}`,
      ],
    });
    latencies.push(performance.now() - started);
  } catch {
    errors++;
  } finally {
    idle.push(client);
  }
};

// A steady schedule: the nth claim is due n / rate seconds after the start, whatever the last one
// cost. The thread wakes when the next claim is due (or a connection frees up while claims are
// overdue), not on a fixed short interval: at 200 claims/s a 2 ms poll woke it 500 times a second.
const startedAt = performance.now();
let issued = 0;
let stopped = false;
let timer: NodeJS.Timeout | undefined;
const dueAt = (n: number) => startedAt + (n * 1000) / ratePerSecond;
const dueBy = (now: number) => Math.floor(((now - startedAt) / 1000) * ratePerSecond);
const tick = () => {
  clearTimeout(timer);
  timer = undefined;
  if (stopped) return;
  const due = dueBy(performance.now());
  while (issued < due) {
    const client = idle.pop();
    if (!client) return; // every connection busy: the next one to finish ticks again
    issued++;
    const promise = write(client).finally(() => {
      inFlight.delete(promise);
      // No timer is set while every connection was busy: this one's end decides what comes next.
      if (timer === undefined) tick();
    });
    inFlight.add(promise);
  }
  timer = setTimeout(tick, Math.max(0, dueAt(issued + 1) - performance.now()));
};
tick();

async function stop(): Promise<ClaimWriterReport> {
  stopped = true;
  clearTimeout(timer);
  await Promise.all(inFlight);
  await Promise.all(clients.map((client) => client.end()));
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    inserted: latencies.length,
    errors,
    meanMs: round(sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length)),
    p99Ms: round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0),
  };
}

parentPort!.once('message', () => {
  void stop().then((report) => parentPort!.postMessage(report));
});
parentPort!.postMessage('started');
