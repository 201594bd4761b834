import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { createTestDatabase } from './database.js';

const run = promisify(execFile);

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a built command (`node dist/cli/<name>.js`) to its end; a failing exit is a result, not an error. */
export async function runBuiltCommand(script: string, args: string[], env: Record<string, string>): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as CommandResult;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A migrated database that a command run as a separate process can open alongside the test. */
export interface CommandDatabase {
  /** What the command's environment needs to open it. */
  environment: Record<string, string>;
  /** PostgreSQL (true) or an embedded database (false). */
  postgres: boolean;
  /** Runs `work` on the database: on the embedded one, opened for that work only. */
  withDatabase: <T>(work: (database: DatabaseHandle) => Promise<T>) => Promise<T>;
  /** Drops the database, or deletes the embedded one's directory. */
  cleanUp: () => Promise<void>;
}

/**
 * The test's PostgreSQL database, or (on PGlite) an embedded database in a temporary directory named
 * from `prefix`, which the test opens only while no command runs, since an embedded database has
 * one user at a time.
 */
export async function databaseForCommands(prefix: string): Promise<CommandDatabase> {
  const testDatabase = await createTestDatabase();
  if (testDatabase.url) {
    return {
      environment: { DATABASE_URL: testDatabase.url },
      postgres: true,
      withDatabase: (work) => work(testDatabase),
      cleanUp: () => testDatabase.close(),
    };
  }
  await testDatabase.close();
  const directory = await mkdtemp(join(tmpdir(), prefix));
  const settings = { PGLITE_DATA_DIR: directory, DB_POOL_MAX: 1, DB_STATEMENT_TIMEOUT_MS: 30_000, DB_CONNECT_TIMEOUT_MS: 5_000 };
  const withDatabase = async <T>(work: (database: DatabaseHandle) => Promise<T>): Promise<T> => {
    const handle = await openDatabase(settings);
    try {
      return await work(handle);
    } finally {
      await handle.close();
    }
  };
  await withDatabase((handle) => handle.migrate());
  return {
    environment: { PGLITE_DATA_DIR: directory },
    postgres: false,
    withDatabase,
    cleanUp: () => rm(directory, { recursive: true, force: true }),
  };
}
