import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, queryRows } from '../../src/db/client.js';
import { type DefiLlamaStandIn, startDefiLlamaStandIn } from '../../scripts/chain/defillama-stand-in.js';
import { type CommandResult, databaseForCommands, runBuiltCommand } from '../helpers/built-command.js';
import { insertToken } from '../helpers/factories.js';

/**
 * The price command end to end, as an operator runs it in the image (`node dist/cli/prices.js`;
 * `npm run prices` runs the same source with tsx): a separate process on the test's database,
 * asking a local stand-in of DefiLlama's coins API (tests never call the public API). On PGlite the
 * test's database is an embedded one in a temporary directory that the test opens only while no
 * command runs, since an embedded database has one user at a time.
 */
// Every step starts a process; on a small, busy machine that takes seconds each.
describe('npm run prices', { timeout: 120_000 }, () => {
  let environment: Record<string, string>;
  let postgres: boolean;
  let withDatabase: <T>(work: (database: DatabaseHandle) => Promise<T>) => Promise<T>;
  let cleanUp: () => Promise<void>;
  let standIn: DefiLlamaStandIn;
  let token: { chainId: number; address: string };
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    ({ environment, postgres, withDatabase, cleanUp } = await databaseForCommands('prices-cli-'));
    token = await withDatabase(({ db }) => insertToken(db, { chainId: 8453, priceUsd: null }));
    standIn = await startDefiLlamaStandIn();
    standIn.setPrice(`base:${token.address}`, { at: Math.floor(Date.now() / 1000), price: 2.5, symbol: 'TK' });
  });
  afterEach(() => {
    for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await standIn?.close();
    await cleanUp?.();
  });

  const baseEnvironment = () => ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    MIGRATE_ON_START: 'false',
    PRICE_DEFILLAMA_URL: standIn.url,
    PRICE_REQUEST_TIMEOUT_MS: '5000',
    ...environment,
  });

  const command = (args: string[], extra: Record<string, string> = {}): Promise<CommandResult> =>
    runBuiltCommand('dist/cli/prices.js', args, { ...baseEnvironment(), LOG_LEVEL: 'silent', ...extra });

  async function freePort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  /** The command running with its status server on a port of its own; its log lines are collected. */
  async function startJob(): Promise<{ child: ChildProcess; url: string; log: string[]; exited: Promise<number | null> }> {
    const port = await freePort();
    const child = spawn(process.execPath, ['dist/cli/prices.js'], {
      env: { ...baseEnvironment(), LOG_LEVEL: 'info', PRICE_POLL_MS: '200', PRICE_METRICS_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    const log: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => log.push(...chunk.toString().split('\n').filter(Boolean)));
    child.stderr.on('data', (chunk: Buffer) => log.push(...chunk.toString().split('\n').filter(Boolean)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, url: `http://127.0.0.1:${port}`, log, exited };
  }

  async function waitFor<T>(what: string, check: () => Promise<T | undefined>, log: string[] = []): Promise<T> {
    const started = Date.now();
    for (;;) {
      const value = await check().catch(() => undefined);
      if (value !== undefined) return value;
      if (Date.now() - started > 60_000) throw new Error(`timed out waiting for ${what}; log:\n${log.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const readiness = async (url: string) => {
    const response = await fetch(`${url}/health/ready`);
    return { code: response.status, body: (await response.json()) as { status: string } };
  };
  const quotesWritten = async (url: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Number(/^price_quotes_written_total\{source="defillama"\} (\d+)/m.exec(text)?.[1] ?? 0);
  };

  it('--check says what would run and exits 0 without a database; with no source it exits 1 saying so', async () => {
    // The embedded database's directory does not exist: --check must not open (and create) it.
    const untouched = { DATABASE_URL: '', PGLITE_DATA_DIR: join(tmpdir(), 'prices-check-never-created') };
    const ok = await command(['--check'], untouched);
    expect(ok).toEqual({ code: 0, stdout: 'price job settings ok: sources defillama, current prices every 60000 ms\n', stderr: '' });
    const none = await command(['--check'], { ...untouched, PRICE_SOURCES: 'none' });
    expect(none).toEqual({ code: 1, stdout: '', stderr: 'nothing to run: PRICE_SOURCES=none names no price source (set defillama, chainlink or both)\n' });
    const invalid = await command(['--check'], { ...untouched, PRICE_SOURCES: 'coingecko' });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^Invalid configuration:\n {2}- PRICE_SOURCES/);
    expect(existsSync(untouched.PGLITE_DATA_DIR)).toBe(false);
  });

  it('writes the prices DefiLlama answers, serves its metrics and readiness, and stops on SIGTERM with exit code 0', async () => {
    const job = await startJob();
    await waitFor('a quote written', async () => ((await quotesWritten(job.url)) > 0 ? true : undefined), job.log);
    // Ready once its first round has ended: the round writes its quotes before it ends.
    const ready = await waitFor(
      'the first round ended',
      async () => {
        const answer = await readiness(job.url);
        return answer.code === 200 ? answer : undefined;
      },
      job.log,
    );
    expect(ready).toMatchObject({ code: 200, body: { status: 'running' } });
    expect(standIn.requests.some((request) => request.endpoint === 'current' && request.coins.includes(`base:${token.address}`))).toBe(true);
    const metrics = await (await fetch(`${job.url}/metrics`)).text();
    expect(metrics).toMatch(/^campaign_service_build_info\{/m);
    expect(metrics).toMatch(/^price_newest_age_seconds\{chain_id="8453",token="/m);

    job.child.kill('SIGTERM');
    expect(await job.exited).toBe(0);
    expect(job.log.map((line) => (JSON.parse(line) as { msg: string }).msg)).toContain('price job stopped');
    const stored = await withDatabase(({ db }) =>
      queryRows<{ source: string; price: string; current: string }>(
        db,
        sql`SELECT p.source, p.price_usd::text AS price, t.price_usd::text AS current
            FROM token_prices p JOIN tokens t ON (t.chain_id, t.address) = (p.chain_id, p.address)
            WHERE p.chain_id = ${token.chainId} AND p.address = ${token.address}`,
      ),
    );
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.every((row) => row.source === 'defillama' && Number(row.price) === 2.5 && Number(row.current) === 2.5)).toBe(true);
  });

  it('runs once per database: a second process stands by and takes over when the first stops', async () => {
    const first = await startJob();
    await waitFor('the first running', async () => ((await readiness(first.url)).body.status === 'running' ? true : undefined), first.log);
    const second = await startJob();
    if (!postgres) {
      // The embedded database has one process at a time: the second is refused before it runs anything.
      expect(await second.exited).toBe(1);
      expect(second.log.join('\n')).toMatch(/the embedded database at .* is in use by process \d+/);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      return;
    }
    await waitFor('the second standing by', async () => ((await readiness(second.url)).body.status === 'standing-by' ? true : undefined), second.log);
    expect(await quotesWritten(second.url)).toBe(0);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    // The token's current price is in the history already, so a round now may write nothing new: the
    // stand-in's requests say that the second asks for prices.
    const asked = standIn.requests.length;
    await waitFor('the second taking over', async () => ((await readiness(second.url)).body.status === 'running' ? true : undefined), second.log);
    await waitFor('the second asking for prices', async () => (standIn.requests.length > asked ? true : undefined), second.log);
    const messages = second.log.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toContain('another process runs the price job on this database: standing by until it stops');
    expect(messages).toContain('price job taking over: the process that ran it stopped');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
