import { spawn } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createIndexer } from '../../src/indexer/indexer.js';
import { claimFor, claimMany, type Deployed, type LocalChain, userAddress } from '../../scripts/chain/local-chain.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createCampaigns, importRecords, indexOnce, operatorRecords, SETTINGS, startChain } from './chain-fixture.js';
import { databaseState } from './database-state.js';
import { type FaultyRpc, startFaultyRpc } from './faulty-rpc.js';

/** The indexer against a misbehaving endpoint, and killed with SIGKILL in the middle of a backfill. */

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const server = inject('testDatabase');

describe('indexer faults', () => {
  let chain: LocalChain;
  let deployed: Deployed;
  let proxy: FaultyRpc;

  beforeAll(async () => {
    ({ chain, deployed } = await startChain());
    proxy = await startFaultyRpc(chain.url);
    await createCampaigns(chain, deployed);
  });

  afterAll(async () => {
    await proxy?.close();
    await chain?.stop();
  });

  const claimCount = async (database: TestDatabase) => (await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM claims`))[0]!.n;

  it('keeps running while the endpoint is down (503, 429, reset connections) and catches up when it returns', async () => {
    const database = await createTestDatabase();
    const errors: unknown[] = [];
    const indexer = createIndexer(
      [{ chainId: chain.chainId, rpcUrl: proxy.url, cores: [{ address: deployed.core, startBlock: 0n }] }],
      database,
      SETTINGS,
      pino({ level: 'silent' }),
      { onRpcError: (_chainId, error) => errors.push(error) },
    );
    const running = indexer.run();
    try {
      await claimFor(chain, deployed.core, 0n, 0n, userAddress(20));
      await waitFor('the first claim', async () => (await claimCount(database)) === 1);
      for (const mode of ['503', '429', 'reset'] as const) {
        proxy.mode = mode;
        const refusedBefore = proxy.refused;
        await claimFor(chain, deployed.core, 0n, 0n, userAddress(21 + ['503', '429', 'reset'].indexOf(mode)));
        await waitFor(`requests refused with ${mode}`, async () => proxy.refused >= refusedBefore + 3);
        expect(await claimCount(database)).toBeLessThan(2 + ['503', '429', 'reset'].indexOf(mode));
        proxy.mode = 'up';
        await waitFor(`catching up after ${mode}`, async () => (await claimCount(database)) === 2 + ['503', '429', 'reset'].indexOf(mode));
      }
      expect(errors.length).toBeGreaterThanOrEqual(9);
    } finally {
      proxy.mode = 'up';
      indexer.stop();
      await running;
      await database.close();
    }
  });

  it('splits a log range the node refuses as too large', async () => {
    const database = await createTestDatabase();
    proxy.maxLogRange = 4;
    try {
      const indexer = createIndexer(
        [{ chainId: chain.chainId, rpcUrl: proxy.url, cores: [{ address: deployed.core, startBlock: 0n }] }],
        database,
        { ...SETTINGS, blockRange: 100 },
        pino({ level: 'silent' }),
      );
      await indexer.run({ once: true });
      expect(proxy.refusedRanges).toBeGreaterThan(0);
      expect(await claimCount(database)).toBe(4);
    } finally {
      proxy.maxLogRange = Number.POSITIVE_INFINITY;
      await database.close();
    }
  });

  // The killed indexer is a process of its own, so the database must be a server: PostgreSQL only.
  it.runIf(server.kind === 'postgres')('killed with SIGKILL in the middle of a backfill, then restarted, gives the database of one clean run', async () => {
    // Thirty blocks of twenty claims each.
    for (let block = 0; block < 30; block++) {
      await claimMany(chain, deployed.core, 0n, 1n, Array.from({ length: 20 }, (_, n) => userAddress(1000 + block * 20 + n)), 10n ** 18n);
    }
    const clean = await createTestDatabase();
    const crashed = await createTestDatabase();
    try {
      expect(clean.url, 'the black-box run needs PostgreSQL (TEST_DATABASE_URL)').toBeDefined();
      for (const database of [clean, crashed]) await importRecords(database, operatorRecords(chain.chainId));
      // The same range size as the killed run: which block hashes are remembered depends on the ranges.
      await indexOnce(chain, deployed.core, clean, { blockRange: 1 });

      const run = () =>
        spawn(process.execPath, ['dist/cli/index.js', '--rpc-url', chain.url, '--chain-id', String(chain.chainId), '--core', deployed.core, '--from-block', '0', '--confirmations', '0', '--once'], {
          env: { PATH: process.env.PATH, DATABASE_URL: crashed.url, LOG_LEVEL: 'warn', INDEXER_BLOCK_RANGE: '1', INDEXER_METRICS_PORT: '0', PRICE_SOURCES: 'none', MIGRATE_ON_START: 'false' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
      const first = run();
      let firstErr = '';
      first.stderr.on('data', (chunk: Buffer) => (firstErr += chunk.toString()));
      const exited = new Promise<void>((resolve) => first.once('exit', () => resolve()));
      const checkpoint = async () =>
        Number((await queryRows<{ n: string }>(crashed.db, sql`SELECT coalesce(max(block_number), 0)::text AS n FROM indexer_checkpoints`))[0]!.n);
      const head = Number(await chain.public.getBlockNumber());
      await waitFor('the backfill to be under way', async () => (await checkpoint()) >= head - 20, 60_000).catch((error: Error) => {
        first.kill('SIGKILL');
        throw new Error(`${error.message}; the indexer wrote: ${firstErr}`);
      });
      first.kill('SIGKILL');
      await exited;
      const reached = await checkpoint();
      expect(reached).toBeLessThan(head);

      const second = run();
      let stderr = '';
      second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
      expect(code, stderr).toBe(0);
      expect(await checkpoint()).toBe(head);
      expect(await databaseState(crashed)).toEqual(await databaseState(clean));
      expect(await claimCount(crashed)).toBe(await claimCount(clean));
    } finally {
      await clean.close();
      await crashed.close();
    }
  }, 180_000);
});
