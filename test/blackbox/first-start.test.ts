import { afterEach, describe, expect, it } from 'vitest';
import { createScratchDatabase, postgresAdminUrl, type ScratchDatabase, SKIP_WITHOUT_POSTGRES } from './helpers/postgres.js';
import { eventually, type ServerProcess, startServer } from './helpers/server-process.js';

/**
 * A newcomer's first start: the built server on a database that has never been migrated must log
 * no warning or error on its way to `ready`. A warning with a stack ("relation ... does not exist")
 * before "migrations applied" reads as a failure to someone who has just typed `npm start`.
 */
interface LogLine {
  level: number;
  msg: string;
}

/** Starts the server on `env`, waits for its `ready` line, stops it, and returns its log lines. */
async function firstStartLogs(env: Record<string, string>): Promise<{ lines: LogLine[]; server: ServerProcess }> {
  const server = await startServer({ LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env });
  const ready = await eventually(async () => /"msg":"ready"/.test(server.logs()), 60_000);
  await server.stop();
  expect(ready, `the server did not log ready:\n${server.logs()}`).toBe(true);
  const lines = server
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
  return { lines, server };
}

const warningsOf = (lines: LogLine[]) => lines.filter((line) => line.level >= 40).map((line) => line.msg);

describe('black box: the first start on a fresh database', () => {
  let scratch: ScratchDatabase | undefined;
  afterEach(async () => {
    await scratch?.drop();
    scratch = undefined;
  });

  it('on the embedded database (npm start with no configuration): no warning before or after "migrations applied"', async () => {
    const { lines, server } = await firstStartLogs({ PGLITE_DATA_DIR: 'memory://' });
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['migrations applied', 'demo data loaded', 'ready']));
    expect(warningsOf(lines), server.logs()).toEqual([]);
  }, 150_000);

  it.skipIf(!postgresAdminUrl())('on an empty PostgreSQL database: no warning either', async () => {
    scratch = await createScratchDatabase(postgresAdminUrl()!, 'campaign_first_start');
    const { lines, server } = await firstStartLogs({ DATABASE_URL: scratch.url });
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['migrations applied', 'ready']));
    expect(warningsOf(lines), server.logs()).toEqual([]);
  }, 150_000);
});

if (!postgresAdminUrl()) console.warn(`first start on PostgreSQL: ${SKIP_WITHOUT_POSTGRES}`);
