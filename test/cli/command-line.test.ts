import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';

const run = promisify(execFile);

/** Every command as the image runs it (node dist/..., built by global-build). */
const COMMANDS = [
  'server',
  'cli/migrate',
  'cli/seed',
  'cli/import',
  'cli/export',
  'cli/token',
  'cli/index',
  'cli/prices',
  'cli/openapi',
  'cli/config-docs',
  'cli/import-schema',
];
/** What the commands that write files write: --help and a bad flag leave them as they are. */
const WRITTEN = ['openapi.json', 'docs/import.schema.json', 'docs/configuration.md'];

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

describe('the commands: --help, unknown flags, a busy embedded database', { timeout: 120_000 }, () => {
  const folder = mkdtempSync(join(tmpdir(), 'command-line-'));
  // No DATABASE_URL: a command that went on would open (and create) the embedded database here.
  const untouched = join(folder, 'never-created');
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const command = async (script: string, args: string[], dataDir = untouched): Promise<Result> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [`dist/${script}.js`, ...args], {
        env: { PATH: process.env.PATH, PGLITE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', NODE_ENV: 'production' },
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as Result;
      return { code, stdout, stderr };
    }
  };

  /** Runs `args` on every command, two at a time (a small machine). */
  async function onEveryCommand(args: string[]): Promise<Map<string, Result>> {
    const results = new Map<string, Result>();
    const queue = [...COMMANDS];
    await Promise.all(
      [0, 1].map(async () => {
        for (let script = queue.shift(); script; script = queue.shift()) results.set(script, await command(script, args));
      }),
    );
    return results;
  }

  const mtimes = () => WRITTEN.map((path) => statSync(path).mtimeMs);
  let before: number[];
  beforeAll(() => {
    before = mtimes();
  });

  it('--help and -h print the usage on stdout, exit 0 and do nothing else', async () => {
    const results = await onEveryCommand(['--help']);
    for (const [script, result] of results) {
      expect({ script, code: result.code, stderr: result.stderr }).toEqual({ script, code: 0, stderr: '' });
      expect(result.stdout, script).toMatch(/^Usage:\s/);
    }
    // A section a usage points to (`docs/operations.md, "Data from the chain"`) is a heading of that file.
    for (const [script, result] of results) {
      for (const [, file, section] of result.stdout.replace(/\s+/g, ' ').matchAll(/\b(README|docs\/[\w-]+\.md),? "([^"]+)"/g)) {
        const markdown = readFileSync(file === 'README' ? 'README.md' : file!, 'utf8');
        expect(markdown.split('\n'), `${script} points to ${file} "${section}"`).toContainEqual(expect.stringMatching(new RegExp(`^#+ ${section}$`)));
      }
    }
    const short = await command('cli/migrate', ['-h']);
    expect(short.code).toBe(0);
    expect(short.stdout).toMatch(/^Usage: npm run db:migrate/);
    expect(existsSync(untouched)).toBe(false);
    expect(mtimes()).toEqual(before);
  });

  it('an unknown flag exits 2 naming it, with the usage on stderr, and does nothing else', async () => {
    const results = await onEveryCommand(['--bogus-flag']);
    for (const [script, result] of results) {
      expect({ script, code: result.code, stdout: result.stdout }).toEqual({ script, code: 2, stdout: '' });
      expect(result.stderr, script).toMatch(/^unknown option --bogus-flag\n\nUsage:\s/);
    }
    expect(existsSync(untouched)).toBe(false);
    expect(mtimes()).toEqual(before);
  });

  it('an argument a command does not take, and a flag without its value, exit 2 too', async () => {
    const [migrate, seed, exported] = await Promise.all([
      command('cli/migrate', ['now']),
      command('cli/seed', ['--campaigns']),
      command('cli/export', ['--out']),
    ]);
    expect(migrate.code).toBe(2);
    expect(migrate.stderr).toContain("Unexpected argument 'now'");
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain("Option '--campaigns <value>' argument missing");
    expect(exported.code).toBe(2);
    expect(existsSync(untouched)).toBe(false);
  });

  it('npm run check:sheet (bench/, run from source by tsx) answers --help and a bad command line as the commands do', async () => {
    const checkSheet = async (args: string[]): Promise<Result> => {
      try {
        const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'bench/sheet-check.ts', ...args], {
          env: { PATH: process.env.PATH, PGLITE_DATA_DIR: untouched, LOG_LEVEL: 'silent' },
          timeout: 60_000,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const { code, stdout, stderr } = error as Result;
        return { code, stdout, stderr };
      }
    };
    const [help, unknown, missing] = [await checkSheet(['--help']), await checkSheet(['--bogus-flag']), await checkSheet([])];
    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: npm run check:sheet -- --database /);
    expect({ code: unknown.code, stdout: unknown.stdout }).toEqual({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/^unknown option --bogus-flag\n\nUsage:\s/);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^--database is required\n\nUsage:\s/);
    expect(existsSync(untouched)).toBe(false);
  });

  describe('while a process holds the embedded database', () => {
    const held = join(folder, 'held');
    let database: DatabaseHandle;
    beforeAll(async () => {
      database = await openDatabase({ PGLITE_DATA_DIR: held, DB_POOL_MAX: 1, DB_STATEMENT_TIMEOUT_MS: 30_000, DB_CONNECT_TIMEOUT_MS: 5_000 });
    });
    afterAll(() => database.close());

    it('a command or a second server that would open it says so and exits 1', async () => {
      const results = await Promise.all([
        command('cli/migrate', [], held),
        command('cli/token', ['list'], held),
        command('cli/export', [], held),
        command('server', [], held),
      ]);
      for (const result of results) {
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`the embedded database at ${held} is in use by process ${process.pid}`);
        expect(result.stderr).toContain('Stop that process first, or set DATABASE_URL');
      }
    });
  });
});
