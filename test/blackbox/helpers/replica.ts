import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findClusterTools } from './postgres.js';
import { freePort } from './server-process.js';

const execFileAsync = promisify(execFile);

export interface ReplicatedPair {
  primaryUrl: string;
  standbyUrl: string;
  destroy(): Promise<void>;
}

/**
 * A primary and a hot standby streaming from it, of the test's own: initdb, start, then
 * `pg_basebackup -R` (which writes standby.signal and primary_conninfo) and start the copy on a
 * second port. Both on free ports in a temporary directory, run as the postgres OS user under root.
 */
export async function createReplicatedPair(): Promise<ReplicatedPair> {
  const tools = findClusterTools();
  if (typeof tools === 'string') throw new Error(tools);
  const directory = await mkdtemp(join(tmpdir(), 'campaign-replica-'));
  if (tools.uid !== undefined && tools.gid !== undefined) await chown(directory, tools.uid, tools.gid);
  const run = async (command: string, args: string[]) => {
    const [program, ...prefix] = [...tools.asUser, join(tools.bindir, command)];
    await execFileAsync(program, [...prefix, ...args], { timeout: 120_000 });
  };
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const primaryData = join(directory, 'primary');
  const standbyData = join(directory, 'standby');
  const options = (port: number) => `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const started: string[] = [];
  const start = async (data: string, port: number) => {
    await run('pg_ctl', ['-D', data, '-o', options(port), '-l', `${data}.log`, '-w', '-t', '60', 'start']);
    started.push(data);
  };

  try {
    // initdb -A trust also lets 127.0.0.1 connect for replication; wal_level is replica by default.
    await run('initdb', ['-D', primaryData, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    await start(primaryData, primaryPort);
    await run('pg_basebackup', ['-D', standbyData, '-R', '-X', 'stream', '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '--no-sync']);
    await start(standbyData, standbyPort);
  } catch (error) {
    for (const data of started) await run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    standbyUrl: `postgres://postgres@127.0.0.1:${standbyPort}/postgres`,
    destroy: async () => {
      for (const data of started.reverse()) await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
