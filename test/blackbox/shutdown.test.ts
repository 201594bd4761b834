import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  lockTable,
  migrateAndSeed,
  postgresAdminUrl,
  type ScratchDatabase,
  SKIP_WITHOUT_POSTGRES,
  someCampaignId,
  uniqueApplicationName,
  waitingOnLocks,
} from './helpers/postgres.js';
import { becameReady, eventually, get, type ServerProcess, startServer } from './helpers/server-process.js';

/** SIGTERM to the built server with a request in flight (held by a table lock). */
const adminUrl = postgresAdminUrl();
if (!adminUrl) console.warn(SKIP_WITHOUT_POSTGRES);

/** Whether a new TCP connection to `port` is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe.skipIf(!adminUrl)('black box: graceful shutdown', () => {
  let database: ScratchDatabase;
  let campaignId: string;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    database = await createScratchDatabase(adminUrl!);
    await migrateAndSeed(database.url);
    campaignId = await someCampaignId(database.url);
  });
  afterAll(async () => {
    await server?.stop(1000);
    await database?.drop();
  });

  it('SIGTERM with a request in flight: it completes, new connections are refused, exit code 0', async () => {
    const applicationName = uniqueApplicationName();
    server = await startServer({
      DATABASE_URL: database.url,
      MIGRATE_ON_START: 'false',
      DB_APPLICATION_NAME: applicationName,
      DB_STATEMENT_TIMEOUT_MS: '20000',
      SHUTDOWN_GRACE_MS: '15000',
      LOG_LEVEL: 'info',
    });
    // Ready (claim volumes loaded in the background, reading campaigns) before the lock.
    expect(await becameReady(server)).toBe(true);
    const lock = await lockTable(database.url, 'campaigns');
    let inFlight: Promise<Awaited<ReturnType<typeof get>>> | undefined;
    try {
      inFlight = get(`${server.url}/campaigns/${campaignId}`);
      expect(await eventually(async () => (await waitingOnLocks(database.url, applicationName)) === 1, 5000)).toBe(true);

      process.kill(server.pid, 'SIGTERM');
      expect(await eventually(() => refused(server!.port), 5000)).toBe(true);
      // Still running: the request in flight holds the shutdown open.
      expect(await Promise.race([server.exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('running'), 300))])).toBe(
        'running',
      );
    } finally {
      await lock.release();
    }
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ id: campaignId });
    expect(await server.exited).toBe(0);
    expect(server.logs()).toContain('"msg":"stopped"');
  });
});
