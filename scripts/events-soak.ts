import { createReadStream } from 'node:fs';
import { type ClientRequest, request } from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort, start, stop } from '../bench/processes.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { migratePostgres } from '../src/db/migrate.js';
import { type EventFilter, matches } from '../src/events/event-filter.js';
import { parseEventId } from '../src/events/frames.js';
import { writeRecords } from '../src/ingest/direct.js';
import { memorySource } from '../src/ingest/memory-source.js';
import { importNdjson } from '../src/ingest/ndjson-source.js';
import type { IngestRecord } from '../src/ingest/records.js';
import { ingest } from '../src/ingest/write.js';
import type { EventPosition } from '../src/repositories/events.repository.js';

const USAGE = `Usage: npm run soak:events -- [--duration 600] [--streams 200] [--unfiltered 20] [--reconnecting 20]
                            [--import-size 5000] [--range-size 1000] [--pause 8]

GET /events under bursts, with nothing lost. The built server (node dist/server.js) on a fresh
database (SOAK_EVENTS_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/campaign_events_soak,
dropped and made anew) with the example campaigns. For --duration seconds it writes claims in bursts,
in turn an import of --import-size claims (ingest(), as npm run import writes) and an indexer range
of --range-size claims (writeRecords(), as the indexer writes), --pause seconds apart on average,
while --streams streams read: --unfiltered take every event, the others filter by campaign, by type
or by claimant. --reconnecting of them hang up at random times and resume with Last-Event-ID, as
EventSource does. Then every stream must have received every event its filter takes, exactly once
and in order, from where it opened to the head of the event log (the events table), or a refetch
event and everything after it. Exits 1 otherwise. Keep --duration under the log's retention (15 min).`;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '600' },
    streams: { type: 'string', default: '200' },
    unfiltered: { type: 'string', default: '20' },
    reconnecting: { type: 'string', default: '20' },
    'import-size': { type: 'string', default: '5000' },
    'range-size': { type: 'string', default: '1000' },
    pause: { type: 'string', default: '8' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const durationS = Number(values.duration);
const streamCount = Number(values.streams);
const unfilteredCount = Number(values.unfiltered);
const reconnectingCount = Number(values.reconnecting);
const importSize = Number(values['import-size']);
const rangeSize = Number(values['range-size']);
const pauseS = Number(values.pause);
const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

/** One stream as EventSource keeps it: reconnects with the last id it saw, and what it received. */
class SoakStream {
  /** The ids of the events received, in order; a refetch's as `refetch:<id>`; trending tops (derived, not logged) are left out. */
  readonly received: string[] = [];
  opened: string | undefined;
  lastEventId: string | undefined;
  connections = 0;
  private request: ClientRequest | undefined;
  private stopped = false;

  constructor(
    private readonly url: string,
    readonly filter: EventFilter,
  ) {}

  connect(): void {
    if (this.stopped) return;
    this.connections++;
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.lastEventId !== undefined) headers['last-event-id'] = this.lastEventId;
    const req = request(this.url, { headers, agent: false }, (response) => {
      if (response.statusCode !== 200) throw new Error(`a stream was answered ${response.statusCode}`);
      response.setEncoding('utf8');
      let buffer = '';
      let id: string | undefined;
      let type = 'message';
      let hasData = false;
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (id !== undefined) {
              this.lastEventId = id;
              this.opened ??= id;
            }
            if (hasData && type !== 'trending.changed') this.received.push(type === 'refetch' ? `refetch:${id ?? ''}` : (id ?? ''));
            id = undefined;
            type = 'message';
            hasData = false;
          } else if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('event: ')) type = line.slice(7);
          else if (line.startsWith('data: ')) hasData = true;
        }
      });
      // The server ended it (shutdown, or a client it judged stalled): reconnect after `retry`, as EventSource does.
      response.on('end', () => setTimeout(() => this.connect(), 1000));
    });
    req.on('error', () => undefined);
    req.end();
    this.request = req;
  }

  /** Hangs up and resumes at once with Last-Event-ID. */
  reconnect(): void {
    this.request?.destroy();
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.request?.destroy();
  }
}

interface LoggedEvent extends EventPosition {
  type: string;
  chainId: number | null;
  campaignId: string | null;
  claimant: string | null;
}

const after = (a: EventPosition, b: EventPosition) => a.seq > b.seq || (a.seq === b.seq && a.id > b.id);

/** What is wrong with what a stream received, against the event log; undefined when nothing is. */
function check(stream: SoakStream, logged: LoggedEvent[]): string | undefined {
  if (stream.opened === undefined) return 'it never opened';
  let cursor = parseEventId(stream.opened)!;
  const expected = logged.filter((event) => matches(stream.filter, event));
  let next = expected.findIndex((event) => after(event, cursor));
  if (next < 0) next = expected.length;
  for (const received of stream.received) {
    const refetch = received.startsWith('refetch:');
    const id = refetch ? received.slice('refetch:'.length) : received;
    const position = parseEventId(id);
    if (position === undefined) return `an event without an id (${received})`;
    if (refetch && !logged.some((event) => event.seq === position.seq && event.id === position.id)) {
      // A refetch sent to this stream alone: it goes on from the refetch's id.
      cursor = position;
      next = expected.findIndex((event) => after(event, cursor));
      if (next < 0) next = expected.length;
      continue;
    }
    const want = expected[next];
    if (want === undefined || want.seq !== position.seq || want.id !== position.id) {
      return `received ${received} where ${want ? `${want.seq}-${want.id} (${want.type})` : 'nothing more'} was next`;
    }
    cursor = position;
    next++;
  }
  if (next < expected.length) return `missed ${expected.length - next} events from ${expected[next]!.seq}-${expected[next]!.id} on`;
  return undefined;
}

const url = process.env.SOAK_EVENTS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/campaign_events_soak';
const databaseName = new URL(url).pathname.slice(1);
const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
await admin.query(`CREATE DATABASE "${databaseName}"`);
await admin.end();
await migratePostgres(url);
const database = await openDatabase({ ...loadConfig({ DATABASE_URL: url }), DB_STATEMENT_TIMEOUT_MS: 600_000, DB_QUERY_TIMEOUT_MS: 601_000 });
await importNdjson(database, createReadStream(new URL('../examples/campaigns.ndjson', import.meta.url)));
const pool = new pg.Pool({ connectionString: url, max: 2 });
const { rows: targets } = await pool.query<{ public_id: string; chain_id: number; position: number }>(
  'SELECT c.public_id, c.chain_id, i.position FROM campaigns AS c JOIN incentives AS i ON i.campaign_key = c.key ORDER BY c.key, i.position',
);

const port = await freePort();
const server = await start(
  process.execPath,
  ['dist/server.js'],
  { DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', EVENTS_MAX_STREAMS_PER_IP: String(streamCount * 2) },
  `http://127.0.0.1:${port}/health/ready`,
);

const claimants = Array.from({ length: 50 }, (_, n) => `0x${(0x50a4000 + n).toString(16).padStart(40, '0')}`);
const filters: EventFilter[] = Array.from({ length: streamCount }, (_, n): EventFilter => {
  if (n < unfilteredCount) return {};
  if (n % 3 === 0) return { campaignIds: new Set([targets[n % targets.length]!.public_id]) };
  if (n % 3 === 1) return { types: new Set(['campaign.changed', 'claim.removed']) };
  return { claimant: claimants[n % claimants.length]! };
});
const query = (filter: EventFilter) => {
  const parts = [
    filter.campaignIds && `campaignId=${[...filter.campaignIds].join(',')}`,
    filter.types && `type=${[...filter.types].join(',')}`,
    filter.claimant && `claimant=${filter.claimant}`,
  ].filter(Boolean);
  return parts.length ? `?${parts.join('&')}` : '';
};
const streams = filters.map((filter) => new SoakStream(`http://127.0.0.1:${port}/events${query(filter)}`, filter));
for (const stream of streams) stream.connect();
while (streams.some((stream) => stream.opened === undefined)) await new Promise((resolve) => setTimeout(resolve, 50));
log(`${streams.length} streams open (${unfilteredCount} unfiltered); writing bursts for ${durationS} s`);

// The reconnecting streams hang up at random, 5 to 40 s apart, each on its own.
const reconnecting = streams.filter((_, n) => n % Math.max(1, Math.floor(streamCount / reconnectingCount)) === 0).slice(0, reconnectingCount);
const reconnectTimers = reconnecting.map((stream) => {
  const schedule = (): NodeJS.Timeout => setTimeout(() => (stream.reconnect(), (timer = schedule())), 5_000 + Math.random() * 35_000);
  let timer = schedule();
  return () => clearTimeout(timer);
});

let nextClaim = 0;
function claims(count: number): IngestRecord[] {
  return Array.from({ length: count }, (): IngestRecord => {
    const n = nextClaim++;
    const target = targets[n % targets.length]!;
    return {
      kind: 'claim',
      chainId: target.chain_id,
      txHash: `0x${(0x50a40000 + n).toString(16).padStart(64, '0')}`,
      logIndex: 0,
      campaign: target.public_id,
      incentivePosition: target.position,
      claimant: claimants[n % claimants.length]!,
      amount: '1000',
      usdValue: '0.01',
      ethValueWei: '1',
      claimedAt: new Date().toISOString(),
    };
  });
}

const ends = Date.now() + durationS * 1000;
let bursts = 0;
let written = 0;
while (Date.now() < ends) {
  const started = Date.now();
  if (bursts % 2 === 0) await ingest(database, memorySource(claims(importSize)));
  else await writeRecords(database, claims(rangeSize));
  const size = bursts % 2 === 0 ? importSize : rangeSize;
  written += size;
  bursts++;
  if (bursts % 10 === 0) log(`${bursts} bursts, ${written} claims written; the last (${size}) took ${Date.now() - started} ms`);
  await new Promise((resolve) => setTimeout(resolve, pauseS * 1000 * (0.5 + Math.random())));
}
for (const stop of reconnectTimers) stop();

// Every stream reads to the head of the log, or the check below says what it missed.
const { rows: logged } = await pool.query<LoggedEvent>(
  `SELECT c.seq::float8 AS seq, e.id::float8 AS id, e.type, e.chain_id AS "chainId", e.campaign_id AS "campaignId", e.claimant
     FROM event_commits AS c JOIN events AS e ON e.xid = c.xid ORDER BY c.seq, e.id`,
);
const head = logged.at(-1)!;
const settled = Date.now() + 120_000;
const lastExpected = new Map(streams.map((stream) => [stream, logged.findLast((event) => matches(stream.filter, event))]));
const caughtUp = (stream: SoakStream) => {
  const expected = lastExpected.get(stream);
  const last = stream.received.at(-1)?.replace('refetch:', '');
  return expected === undefined || (last !== undefined && !after(expected, parseEventId(last) ?? { seq: 0, id: 0 }));
};
while (Date.now() < settled && !streams.every(caughtUp)) await new Promise((resolve) => setTimeout(resolve, 250));
for (const stream of streams) stream.stop();

const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
await stop(server);
await pool.end();
await database.close();

const failures = streams.flatMap((stream, n) => {
  const problem = check(stream, logged);
  return problem ? [`stream ${n} (${query(stream.filter) || 'unfiltered'}): ${problem}`] : [];
});
const delivered = streams.reduce((sum, stream) => sum + stream.received.length, 0);
const refetches = streams.reduce((sum, stream) => sum + stream.received.filter((event) => event.startsWith('refetch:')).length, 0);
const reconnects = streams.reduce((sum, stream) => sum + stream.connections - 1, 0);
log(`${bursts} bursts, ${written} claims; the log holds ${logged.length} events through ${head.seq}-${head.id}`);
log(`${streams.length} streams received ${delivered} events; ${reconnects} reconnections, ${refetches} refetches`);
for (const line of metrics.split('\n').filter((line) => line.startsWith('event_stream'))) log(line);
if (failures.length > 0) {
  for (const failure of failures.slice(0, 20)) log(`FAIL ${failure}`);
  log(`${failures.length} of ${streams.length} streams did not receive every event exactly once`);
  process.exit(1);
}
log(`every stream received every event exactly once (or a refetch and everything after it)`);
process.exit(0);
