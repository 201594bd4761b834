import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * One process at a time on an embedded database directory.
 *
 * PGlite takes no lock of its own: two processes open the same directory without complaint, both
 * write, and the directory is corrupted. The postmaster.pid it writes holds -42 rather than a
 * process id and is left behind by a process that dies, so it cannot tell a running server from a
 * crash. This lock file, beside the directory (`<dir>.lock`, so that PGlite's initdb finds its
 * directory as it expects and a copy of the directory carries no lock), holds the holder's process
 * id: a live holder refuses the open, a dead one's file is taken over.
 *
 * The liveness check sees the processes of this machine (this container): two containers sharing a
 * volume are not told apart.
 */
export class EmbeddedDatabaseInUse extends Error {
  override name = 'EmbeddedDatabaseInUse';
}

/** The locks this process holds, by lock file: a second open of one of them in this process is refused too. */
const held = new Set<string>();
let exitHookInstalled = false;

export function lockPathFor(dataDir: string): string {
  return `${resolve(dataDir)}.lock`;
}

/** Takes the lock of `dataDir`, or throws EmbeddedDatabaseInUse naming the process that holds it. Returns the release. */
export function lockDataDir(dataDir: string): () => void {
  const lockPath = lockPathFor(dataDir);
  if (held.has(lockPath)) throw inUse(dataDir, lockPath, process.pid);
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(lockPath)) break;
    const holder = readHolder(lockPath);
    if (holder === undefined) continue; // released between the two calls: try again
    // The same process id as this one, not held here: a previous life of a container whose main process always gets the same id.
    if (holder !== process.pid && isAlive(holder)) throw inUse(dataDir, lockPath, holder);
    if (attempt > 2) throw inUse(dataDir, lockPath, holder);
    removeIfHeldBy(lockPath, holder);
  }
  held.add(lockPath);
  installExitHook();
  return () => {
    if (!held.delete(lockPath)) return;
    removeIfHeldBy(lockPath, process.pid);
  };
}

/** Creates the lock file with this process's id, complete or not at all (a link of a written file). */
function tryCreate(lockPath: string): boolean {
  const staged = `${lockPath}.${process.pid}`;
  writeFileSync(staged, `${process.pid}\n`);
  try {
    linkSync(staged, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(staged);
  }
}

function readHolder(lockPath: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number(text.trim());
  // Not a process id: nobody this code wrote; a stale or foreign file, taken over like a dead holder's.
  return Number.isInteger(pid) && pid > 0 ? pid : 0;
}

function isAlive(pid: number): boolean {
  if (pid === 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeIfHeldBy(lockPath: string, pid: number): void {
  const holder = readHolder(lockPath);
  if (holder === undefined || holder !== pid) return;
  try {
    unlinkSync(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** A process that exits without closing the database (process.exit on a fatal error) leaves no lock behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const lockPath of held) removeIfHeldBy(lockPath, process.pid);
    held.clear();
  });
}

function inUse(dataDir: string, lockPath: string, pid: number): EmbeddedDatabaseInUse {
  const who = pid === process.pid ? 'this process' : `process ${pid}`;
  return new EmbeddedDatabaseInUse(
    `the embedded database at ${dataDir} is in use by ${who} (a running server or command; ${lockPath}): ` +
      'it has one user at a time. Stop that process first, or set DATABASE_URL to use PostgreSQL. ' +
      `If no such process is running, delete ${lockPath} and retry.`,
  );
}
