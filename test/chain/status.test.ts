import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStatusServer } from '../../src/indexer/http.js';
import { createIndexer } from '../../src/indexer/indexer.js';
import { IndexerStatus } from '../../src/indexer/status.js';
import type { Progress } from '../../src/indexer/core-indexer.js';
import { claimFor, type Deployed, type LocalChain, userAddress } from '../../scripts/chain/local-chain.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createCampaigns, SETTINGS, startChain } from './chain-fixture.js';
import { startFaultyRpc } from './faulty-rpc.js';

/** The indexer's metrics and readiness: per chain lag in blocks and seconds against the budget. */

const NOW = Date.parse('2026-01-01T00:00:00Z');

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Readiness {
  code: number;
  body: { status: string; cores: { lagSeconds: number; lagBlocks: number; withinBudget: boolean; reason?: string }[] };
}

async function readiness(url: string): Promise<Readiness> {
  const response = await fetch(`${url}/health/ready`);
  return { code: response.status, body: (await response.json()) as Readiness['body'] };
}

const progress = (overrides: Partial<Progress>): Progress => ({
  chainId: 8453,
  core: '0xea11a7937809b8585e63b12cc86bf91a72a5b08a',
  startBlock: 100n,
  indexedBlock: 195n,
  indexedTimestamp: 1_000,
  headBlock: 200n,
  headTimestamp: 1_010,
  headReadAt: NOW,
  safeBlock: 195n,
  logs: 0,
  claims: 0,
  campaigns: 0,
  skipped: { incentive: 0, action: 0, allowList: 0, claim: 0 },
  ...overrides,
});

describe('indexer status', () => {
  it('is ready only when every core has reported and is within the lag budget', async () => {
    let now = NOW;
    const status = new IndexerStatus(60, () => now);
    const server = await startStatusServer(status, 2, '127.0.0.1', 0);
    try {
      const ready = () => readiness(server.url);
      expect((await ready()).code).toBe(503);
      status.record(progress({}));
      status.record(progress({ chainId: 10, headTimestamp: 1_061 }));
      const lagging = await ready();
      expect(lagging.code).toBe(503);
      expect(lagging.body.cores.map((core) => [core.lagBlocks, core.lagSeconds])).toEqual([
        [5, 10],
        [5, 61],
      ]);
      expect(lagging.body.cores[1]!.reason).toBe('61 s behind the head, over the lag budget of 60 s');
      status.record(progress({ chainId: 10, indexedTimestamp: 1_020, headTimestamp: 1_061 }));
      expect(await ready()).toMatchObject({ code: 200, body: { status: 'ready' } });
      // No head read since: the time since the last one counts, whatever the last head said.
      now += 30_000;
      expect((await ready()).body.cores.map((core) => core.lagSeconds)).toEqual([40, 71]);
      status.record(progress({ chainId: 10, indexedTimestamp: 1_020, headTimestamp: 1_061, headReadAt: now }));
      expect((await ready()).body.cores.map((core) => core.lagSeconds)).toEqual([40, 41]);
      expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
      expect((await fetch(`${server.url}/nothing`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  describe('on anvil', () => {
    let chain: LocalChain;
    let deployed: Deployed;
    let database: TestDatabase;

    beforeAll(async () => {
      ({ chain, deployed } = await startChain());
      database = await createTestDatabase();
      await createCampaigns(chain, deployed);
      await claimFor(chain, deployed.core, 0n, 0n, userAddress(30));
      await chain.mine(1);
    });

    afterAll(async () => {
      await database?.close();
      await chain?.stop();
    });

    it('exports indexed block, head, lag, logs and RPC errors per chain in Prometheus metrics', async () => {
      const proxy = await startFaultyRpc(chain.url);
      const status = new IndexerStatus(60);
      const server = await startStatusServer(status, 1, '127.0.0.1', 0);
      try {
        proxy.mode = '503';
        const indexer = createIndexer(
          [{ chainId: chain.chainId, rpcUrl: proxy.url, cores: [{ address: deployed.core, startBlock: 0n }] }],
          database,
          { ...SETTINGS, confirmations: 1 },
          pino({ level: 'silent' }),
          { onProgress: (entry) => status.record(entry), onRpcError: (chainId) => status.rpcError(chainId) },
        );
        const running = indexer.run({ once: true });
        await new Promise((resolve) => setTimeout(resolve, 300));
        proxy.mode = 'up';
        await running;
        const head = await chain.public.getBlockNumber();
        const text = await (await fetch(`${server.url}/metrics`)).text();
        const labels = `chain_id="${chain.chainId}",core="${deployed.core.toLowerCase()}"`;
        expect(text).toContain(`indexer_indexed_block{${labels}} ${head - 1n}`);
        expect(text).toContain(`indexer_head_block{chain_id="${chain.chainId}"} ${head}`);
        expect(text).toContain(`indexer_lag_blocks{${labels}} 1`);
        expect(text).toMatch(new RegExp(`indexer_lag_seconds\\{${labels}\\} [0-9]+`));
        expect(text).toContain(`indexer_claims_total{${labels}} 1`);
        // The second boost's third incentive is of an unknown type: skipped, and counted.
        expect(text).toContain(`indexer_skipped_total{${labels},kind="incentive"} 1`);
        expect(text).toContain(`indexer_skipped_total{${labels},kind="claim"} 0`);
        expect(text).toMatch(new RegExp(`^campaign_service_build_info\\{version="[^"]+",commit="[^"]+",node="${process.version}"\\} 1$`, 'm'));
        // Two BoostCreated, five IncentiveAdded, one BoostClaimed and its Claimed.
        expect(text).toContain(`indexer_logs_total{${labels}} 9`);
        expect(text).toMatch(new RegExp(`indexer_logs_per_second\\{${labels}\\} [0-9.]+`));
        expect(text).toMatch(new RegExp(`indexer_rpc_errors_total\\{chain_id="${chain.chainId}"\\} [1-9][0-9]*`));
        expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
      } finally {
        await server.close();
        await proxy.close();
      }
    });

    it('is not ready while the RPC cannot be read for longer than the lag budget, with a lag that grows, and ready again once it answers', async () => {
      const proxy = await startFaultyRpc(chain.url);
      const status = new IndexerStatus(1);
      const server = await startStatusServer(status, 1, '127.0.0.1', 0);
      const indexer = createIndexer(
        [{ chainId: chain.chainId, rpcUrl: proxy.url, cores: [{ address: deployed.core, startBlock: 0n }] }],
        database,
        SETTINGS,
        pino({ level: 'silent' }),
        { onProgress: (entry) => status.record(entry), onRpcError: (chainId) => status.rpcError(chainId) },
      );
      const running = indexer.run();
      try {
        await waitFor('ready', async () => ((await readiness(server.url)).code === 200 ? true : undefined));
        const cutAt = Date.now();
        proxy.mode = '503';
        const cut = await waitFor('not ready for the RPC', async () => {
          const answer = await readiness(server.url);
          return answer.code === 503 && answer.body.cores[0]?.reason?.includes('could not be read') ? answer : undefined;
        });
        expect(cut.body.status).toBe('lagging');
        const [core] = cut.body.cores;
        expect(core!.withinBudget).toBe(false);
        expect(core!.lagSeconds).toBeGreaterThan(1);
        const since = /^the RPC of chain \d+ could not be read since (\S+) \(its last head read\)/.exec(core!.reason!);
        expect(since).not.toBeNull();
        // The last head read before the cut.
        expect(Date.parse(since![1]!)).toBeLessThanOrEqual(cutAt);
        await waitFor('a lag that grows', async () => {
          const answer = await readiness(server.url);
          return answer.code === 503 && answer.body.cores[0]!.lagSeconds > core!.lagSeconds ? true : undefined;
        });
        const labels = `chain_id="${chain.chainId}",core="${deployed.core.toLowerCase()}"`;
        const scraped = /indexer_lag_seconds\{[^}]*\} ([0-9]+)/.exec(await (await fetch(`${server.url}/metrics`)).text());
        expect(scraped?.[0]).toContain(labels);
        expect(Number(scraped![1])).toBeGreaterThan(core!.lagSeconds);
        proxy.mode = 'up';
        const back = await waitFor('ready again', async () => {
          const answer = await readiness(server.url);
          return answer.code === 200 ? answer : undefined;
        });
        expect(back.body.cores[0]).not.toHaveProperty('reason');
      } finally {
        proxy.mode = 'up';
        indexer.stop();
        await running;
        await server.close();
        await proxy.close();
      }
    }, 90_000);
  });
});
