import cliProgress from 'cli-progress';
import { openDatabase } from '../db/client.js';
import { DEFAULT_SEED, generateDataset } from '../seed/dataset.js';
import { hasCampaigns, truncateDataset, writeDataset } from '../ingest/bulk-load.js';
import { loadBulkConfig } from './bulk-config.js';
import { CommandError, parseCommandLine, runCommand, UsageError } from './command-line.js';

const USAGE = `Usage: npm run db:seed -- --campaigns N --claims M [--seed S] [--now ISO-8601] [--reset]

Fills DATABASE_URL (or the embedded database) with deterministic demo data: the same seed and
--now give the same data. Claims fall in the 7 days before --now (default: the current time).
--reset empties the data tables first; without it the database must not hold campaigns yet.`;

/** `npm run db:seed`: the data generator's command line. */
async function main(): Promise<void> {
  const parsed = parseCommandLine(USAGE, {
    options: {
      campaigns: { type: 'string', default: '1000' },
      claims: { type: 'string', default: '10000' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      now: { type: 'string' },
      reset: { type: 'boolean', default: false },
    },
  });
  if (!parsed) return;
  const { values } = parsed;
  const campaigns = parseCount('--campaigns', values.campaigns);
  const claims = parseCount('--claims', values.claims);
  const now = values.now === undefined ? new Date() : new Date(values.now);
  if (Number.isNaN(now.getTime())) throw new UsageError('--now must be an ISO 8601 date-time');

  const database = await openDatabase(loadBulkConfig());
  try {
    await database.migrate();
    if (values.reset) await truncateDataset(database.db);
    else if (await hasCampaigns(database.db)) {
      throw new CommandError(`${database.location} already holds campaigns; pass --reset to replace them`);
    }

    const started = Date.now();
    const progress = createProgress(campaigns + claims);
    const counts: Record<string, number> = {};
    const phases: string[] = [];
    await writeDataset(
      database,
      generateDataset({ campaigns, claims, seed: values.seed, now }),
      ({ table, rows }) => {
        counts[table] = (counts[table] ?? 0) + rows;
        if (table === 'campaigns' || table === 'claims') progress.advance(rows);
      },
      (phase, ms) => {
        if (phases.length === 0) phases.push(`  generate and copy rows   ${((Date.now() - started - ms) / 1000).toFixed(1)} s`);
        phases.push(`  ${phase.padEnd(24)} ${(ms / 1000).toFixed(1)} s`);
      },
    );
    progress.stop();
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`Seeded ${database.location} in ${seconds} s (seed ${values.seed}, now ${now.toISOString()}):`);
    for (const [table, rows] of Object.entries(counts)) console.log(`  ${table.padEnd(20)} ${rows.toLocaleString('en-US')}`);
    console.log(`Time by step:\n${phases.join('\n')}`);
  } finally {
    await database.close();
  }
}

function parseCount(name: string, value: string): number {
  if (!/^[0-9]{1,9}$/.test(value)) throw new UsageError(`${name} must be a whole number`);
  return Number(value);
}

/** A bar on a terminal; a line per tenth elsewhere (CI logs). */
function createProgress(total: number) {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: 'seeding [{bar}] {percentage}% | {value}/{total} campaigns+claims | {duration_formatted}' },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0);
    return { advance: (rows: number) => bar.increment(rows), stop: () => bar.stop() };
  }
  let done = 0;
  let reported = 0;
  return {
    advance: (rows: number) => {
      done += rows;
      const tenth = Math.floor((done / total) * 10);
      if (tenth > reported) {
        reported = tenth;
        console.error(`seeding: ${tenth * 10}%`);
      }
    },
    stop: () => undefined,
  };
}

runCommand(USAGE, 'seeding failed', main);
