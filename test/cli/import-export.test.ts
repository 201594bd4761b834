import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { baseRecords, claimRecord, lines } from '../helpers/records.js';

const run = promisify(execFile);

/** The commands as the image runs them (node dist/cli/*.js, built by global-build), on PostgreSQL. */
describe('node dist/cli/import.js and export.js', () => {
  let database: TestDatabase;
  let folder: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    folder = mkdtempSync(join(tmpdir(), 'import-cli-'));
  });
  afterAll(async () => {
    rmSync(folder, { recursive: true, force: true });
    await database.close();
  });

  const command = async (script: string, args: string[], stdin?: string) => {
    const child = run('node', [`dist/cli/${script}.js`, ...args], {
      env: { PATH: process.env.PATH, DATABASE_URL: database.url, LOG_LEVEL: 'silent' },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (stdin !== undefined) {
      child.child.stdin!.end(stdin);
    }
    try {
      const { stdout, stderr } = await child;
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  };

  // The commands reach the database by URL: PostgreSQL only (the embedded test database has none).
  it.runIf(inject('testDatabase').kind === 'postgres')('imports a file, refuses a bad one naming file, line and field with exit code 1, and exports what it holds', async () => {
    const good = join(folder, 'data.ndjson');
    writeFileSync(good, lines(baseRecords()));
    const imported = await command('import', [good]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/claim\s+2\s+0\s+0\s+0/);

    const bad = join(folder, 'bad.ndjson');
    const price = { kind: 'price', chainId: 8453, address: `0x${'ab'.repeat(20)}`, at: '2026-01-31T12:00:00.000Z', priceUsd: '-1.5' };
    writeFileSync(bad, lines([claimRecord(7), { ...claimRecord(8), amount: 12 }, price]));
    const refused = await command('import', [bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${bad}:2: claim.amount must be a decimal integer string`);
    expect(refused.stderr).toContain(`${bad}:3: price.priceUsd must be a decimal string greater than 0`);

    const fromStdin = await command('import', ['-', '--dry-run'], lines([claimRecord(9)]));
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toMatch(/Dry run/);

    const toStdout = await command('export', []);
    expect(toStdout.code).toBe(0);
    const out = join(folder, 'export.ndjson');
    expect((await command('export', ['--out', out])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(toStdout.stdout);
    expect(toStdout.stdout.trim().split('\n')).toHaveLength(baseRecords().length);
  });
});
