import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findClusterTools } from './postgres.js';
import { freePort, sleep } from './server-process.js';

const execFileAsync = promisify(execFile);
const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path));

/** Why PgBouncer cannot run here (.ci/run installs it from Debian), or undefined when it can. */
export function pgbouncerMissing(): string | undefined {
  if (!PGBOUNCER) return 'pgbouncer is not installed (apt-get install pgbouncer; .ci/run does)';
  const tools = findClusterTools();
  return typeof tools === 'string' ? tools : undefined;
}

export interface PgBouncer {
  /** `url` with its host and port replaced by PgBouncer's. */
  through(url: string): string;
  /** PgBouncer's own console (SHOW POOLS, SHOW STATS). */
  adminUrl: string;
  stop(): Promise<void>;
}

/**
 * A PgBouncer of the test's own in front of the PostgreSQL at `serverUrl`: every database name
 * passes through, trust authentication for `postgres`, `pool_mode` as asked, and `poolSize` server
 * connections per database (few, so that transactions of different clients share them).
 */
export async function startPgBouncer(serverUrl: string, { poolMode = 'transaction', poolSize = 4 } = {}): Promise<PgBouncer> {
  const tools = findClusterTools();
  if (typeof tools === 'string' || !PGBOUNCER) throw new Error(pgbouncerMissing());
  const directory = await mkdtemp(join(tmpdir(), 'campaign-pgbouncer-'));
  const server = new URL(serverUrl);
  const port = await freePort();
  const ini = join(directory, 'pgbouncer.ini');
  await writeFile(join(directory, 'users.txt'), '"postgres" ""\n');
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(directory, 'users.txt')}`,
      `pool_mode = ${poolMode}`,
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      'admin_users = postgres',
      `logfile = ${join(directory, 'pgbouncer.log')}`,
      `pidfile = ${join(directory, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  if (tools.uid !== undefined && tools.gid !== undefined) {
    for (const path of [directory, ini, join(directory, 'users.txt')]) await chown(path, tools.uid, tools.gid);
  }
  // PgBouncer refuses to run as root: as the postgres OS user then, daemonized, stopped by its pid.
  const [program, ...prefix] = [...tools.asUser, PGBOUNCER];
  await execFileAsync(program, [...prefix, '-d', ini], { timeout: 10_000 });
  let pid: number | undefined;
  for (let i = 0; i < 50 && pid === undefined; i++) {
    pid = Number(await readFile(join(directory, 'pgbouncer.pid'), 'utf8').catch(() => '')) || undefined;
    if (pid === undefined) await sleep(100);
  }
  if (pid === undefined) throw new Error(`pgbouncer did not start:\n${await readFile(join(directory, 'pgbouncer.log'), 'utf8').catch(() => '')}`);
  const through = (url: string) => {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(port);
    return parsed.toString();
  };
  return {
    through,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/pgbouncer`,
    stop: async () => {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      for (let i = 0; i < 50; i++) {
        try {
          process.kill(pid, 0);
          await sleep(100);
        } catch {
          break;
        }
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}
