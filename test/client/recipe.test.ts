import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

/**
 * The README's typed-client recipe ("Typed clients"), run as a reader would: its setup commands in a
 * new, empty folder (a new npm package, the pinned packages, types generated from a live server),
 * its TypeScript block saved as client.ts, then its run commands (tsc's check, then tsx). The one
 * change to the README's text is the base URL: http://127.0.0.1:3000 becomes this test's server on a
 * free port. The packages come from npm's cache, which `npm ci` filled with these versions, and
 * from the registry when the cache lacks one.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README_URL = 'http://127.0.0.1:3000';
const TIMEOUT_MS = 180_000;

/** The fenced block of `language` between `<!-- name:start -->` and `<!-- name:end -->`. */
function block(readme: string, name: string, language: string): string {
  const match = new RegExp(`<!-- ${name}:start -->\\s*\`\`\`${language}\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(readme);
  if (!match?.[1]) throw new Error(`README.md has no ${language} block between <!-- ${name}:start --> and <!-- ${name}:end -->`);
  return match[1];
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` with `bash -e` in `cwd`. Its own process group, so that a timeout ends npm, npx
 * and everything they started, not only bash.
 */
function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group has already exited.
      }
    };
    const timer = setTimeout(() => {
      stderr += `\n[recipe test] killed after ${timeoutMs} ms`;
      killGroup();
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Anything the script left running in the background goes with it.
      killGroup();
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * The environment of a reader's terminal: without what `npm test` exports to its scripts (above all
 * npm_config_local_prefix, which would point npm at this project instead of the new folder), with
 * npm told to prefer its cache and to keep quiet about audits, funding and updates.
 */
function readerEnvironment(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'));
  return {
    ...env,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

describe("the README's typed-client recipe, run verbatim in a new folder", () => {
  let database: TestDatabase;
  let app: App;
  let baseUrl: string;
  let folder: string;
  const expectedIds: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    // The block filters by one paying token: two campaigns pay it, a third pays another one.
    const token = /tokens: \['(\d+):(0x[0-9a-f]{40})'\]/.exec(block(readme, 'typed-client', 'ts'));
    if (!token) throw new Error("README.md's typed-client block no longer filters by one token: update this test's data");
    const paid = await insertToken(db, { chainId: Number(token[1]), address: token[2], symbol: 'USDC', decimals: 6 });
    const other = await insertToken(db, { chainId: paid.chainId, symbol: 'OTHER' });
    const older = await insertCampaign(db, { chainId: paid.chainId, blockTimestamp: 1_700_000_100, incentives: [erc20Incentive(paid.address)] });
    const newer = await insertCampaign(db, { chainId: paid.chainId, blockTimestamp: 1_700_000_200, incentives: [erc20Incentive(paid.address)] });
    await insertCampaign(db, { chainId: paid.chainId, blockTimestamp: 1_700_000_300, incentives: [erc20Incentive(other.address)] });
    // The list is newest first.
    expectedIds.push(newer.publicId, older.publicId);

    app = await buildTestApp(database);
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    folder = await mkdtemp(join(tmpdir(), 'typed-client-recipe-'));
  });
  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
    await app?.close();
    await database?.close();
  });

  it(
    'installs, generates the types, type-checks client.ts and prints the matching campaigns',
    async () => {
      const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
      const live = (text: string) => {
        expect(text).toContain(README_URL);
        return text.replaceAll(README_URL, baseUrl);
      };
      const setup = live(block(readme, 'typed-client-setup', 'sh'));
      const client = live(block(readme, 'typed-client', 'ts'));
      const run = block(readme, 'typed-client-run', 'sh');
      // One shell, as in a reader's terminal: the setup's `cd` holds for saving client.ts and for the run.
      const script = `${setup}\nprintf '%s' "$RECIPE_CLIENT_TS" > client.ts\n${run}`;

      const outcome = await runScript(script, folder, { ...readerEnvironment(), RECIPE_CLIENT_TS: client }, TIMEOUT_MS - 10_000);

      const report = `exit ${outcome.code ?? outcome.signal}\n--- stdout\n${outcome.stdout}\n--- stderr\n${outcome.stderr}`;
      expect(outcome.code, report).toBe(0);
      // The client prints last, in console.log's own formatting of the block's two values.
      const printed = `${format(expectedIds.length, expectedIds)}\n`;
      expect(outcome.stdout.slice(-printed.length), report).toBe(printed);
    },
    TIMEOUT_MS,
  );
});
