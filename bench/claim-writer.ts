import pg from 'pg';

/**
 * Writes claims the way a chain indexer does while the benchmark drives the API: single-claim
 * transactions at a steady rate, each claim of a random incentive, made now. It reports how many it
 * wrote, how many failed, and what one insert cost (latency of the INSERT and its commit).
 */
export interface ClaimWriterReport {
  inserted: number;
  errors: number;
  meanMs: number;
  p99Ms: number;
}

export interface ClaimWriter {
  stop(): Promise<ClaimWriterReport>;
}

/** Connections the writer spreads its transactions over, so that one slow commit does not stall the rate. */
const CONNECTIONS = 4;

export async function startClaimWriter(url: string, ratePerSecond: number): Promise<ClaimWriter> {
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
      await client.query(
        `INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
         VALUES ($1, (SELECT chain_id FROM campaigns WHERE key = $1), $2, $3, $4, $5, 0, $6, 0, now())`,
        [
          target.campaign_key,
          target.position,
          `0x${(0xbe0000 + (sequence % 65536)).toString(16).padStart(40, '0')}`,
          String(1 + Math.floor(Math.random() * 1_000_000)),
          (Math.random() * 100).toFixed(6),
          // A transaction hash of its own per claim and per run: the natural key is (chain, transaction, log index).
          `0x${(Date.now() * 1000 + (sequence % 1000)).toString(16).padStart(64, '0')}`,
        ],
      );
      latencies.push(performance.now() - started);
    } catch {
      errors++;
    } finally {
      idle.push(client);
    }
  };

  // A steady schedule: the nth claim is due n / rate seconds after the start, whatever the last one cost.
  const startedAt = performance.now();
  let issued = 0;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    const due = Math.floor(((performance.now() - startedAt) / 1000) * ratePerSecond);
    while (issued < due) {
      const client = idle.pop();
      if (!client) break; // every connection busy: the claim waits for the next tick
      issued++;
      const promise = write(client).finally(() => inFlight.delete(promise));
      inFlight.add(promise);
    }
    timer = setTimeout(tick, 2);
  };
  let timer = setTimeout(tick, 0);

  return {
    async stop() {
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
    },
  };
}
