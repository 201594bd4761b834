import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { EmbeddedDatabaseInUse, lockDataDir, lockPathFor } from '../../src/db/pglite-lock.js';

const run = promisify(execFile);

/** The embedded database's lock: one process at a time on a data directory, a dead holder's lock taken over. */
describe('embedded database lock', () => {
  const folder = mkdtempSync(join(tmpdir(), 'pglite-lock-'));
  let counter = 0;
  const freshDir = () => join(folder, `db-${++counter}`);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('writes this process id beside the directory, refuses a second lock in this process, and removes the file on release', () => {
    const dir = freshDir();
    const release = lockDataDir(dir);
    expect(lockPathFor(dir)).toBe(`${dir}.lock`);
    expect(readFileSync(`${dir}.lock`, 'utf8')).toBe(`${process.pid}\n`);
    expect(() => lockDataDir(dir)).toThrow(EmbeddedDatabaseInUse);
    expect(() => lockDataDir(`${dir}/`)).toThrow(/in use by this process/);
    release();
    expect(existsSync(`${dir}.lock`)).toBe(false);
    release(); // twice is harmless
    lockDataDir(dir)();
  });

  it('refuses a directory a live process holds, naming the process and the lock file', () => {
    const dir = freshDir();
    writeFileSync(`${dir}.lock`, `${process.ppid}\n`);
    expect(() => lockDataDir(dir)).toThrow(
      `the embedded database at ${dir} is in use by process ${process.ppid} (a running server or command; ${dir}.lock)`,
    );
    expect(readFileSync(`${dir}.lock`, 'utf8')).toBe(`${process.ppid}\n`);
  });

  it('takes over the lock of a process that is gone, of an earlier life of this process id, and a file that names no process', async () => {
    const child = await run(process.execPath, ['-e', 'console.log(process.pid)']);
    const gone = Number(child.stdout.trim());
    for (const content of [`${gone}\n`, `${process.pid}\n`, 'not a pid\n', '']) {
      const dir = freshDir();
      writeFileSync(`${dir}.lock`, content);
      const release = lockDataDir(dir);
      expect(readFileSync(`${dir}.lock`, 'utf8')).toBe(`${process.pid}\n`);
      release();
    }
  });

  it('leaves no lock behind when the process exits without releasing it', async () => {
    const dir = freshDir();
    const script = `import { lockDataDir } from './dist/db/pglite-lock.js'; lockDataDir(${JSON.stringify(dir)}); process.exit(3);`;
    const exited = await run(process.execPath, ['--input-type=module', '-e', script]).catch((error: { code: number }) => error);
    expect((exited as { code: number }).code).toBe(3);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it('is taken by opening the embedded database and released by closing it; memory:// takes none', { timeout: 60_000 }, async () => {
    const dir = freshDir();
    const settings = { PGLITE_DATA_DIR: dir, DB_POOL_MAX: 1, DB_STATEMENT_TIMEOUT_MS: 30_000, DB_CONNECT_TIMEOUT_MS: 5_000 };
    const database = await openDatabase(settings);
    try {
      expect(readFileSync(`${dir}.lock`, 'utf8')).toBe(`${process.pid}\n`);
      await expect(openDatabase(settings)).rejects.toThrow(EmbeddedDatabaseInUse);
    } finally {
      await database.close();
    }
    expect(existsSync(`${dir}.lock`)).toBe(false);
    const inMemory = await openDatabase({ ...settings, PGLITE_DATA_DIR: 'memory://' });
    await inMemory.close();
    expect(existsSync(lockPathFor('memory://'))).toBe(false);
  });
});
