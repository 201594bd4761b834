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

const progress = (overrides: Partial<Progress>): Progress => ({
  chainId: 8453,
  core: '0xea11a7937809b8585e63b12cc86bf91a72a5b08a',
  startBlock: 100n,
  indexedBlock: 195n,
  indexedTimestamp: 1_000,
  headBlock: 200n,
  headTimestamp: 1_010,
  safeBlock: 195n,
  logs: 0,
  claims: 0,
  campaigns: 0,
  skipped: { incentive: 0, action: 0, allowList: 0, claim: 0 },
  ...overrides,
});

describe('indexer status', () => {
  it('is ready only when every core has reported and is within the lag budget', async () => {
    const status = new IndexerStatus(60);
    const server = await startStatusServer(status, 2, '127.0.0.1', 0);
    try {
      const ready = async () => {
        const response = await fetch(`${server.url}/health/ready`);
        return { code: response.status, body: (await response.json()) as { status: string; cores: { lagSeconds: number; lagBlocks: number }[] } };
      };
      expect((await ready()).code).toBe(503);
      status.record(progress({}));
      status.record(progress({ chainId: 10, headTimestamp: 1_061 }));
      const lagging = await ready();
      expect(lagging.code).toBe(503);
      expect(lagging.body.cores.map((core) => [core.lagBlocks, core.lagSeconds])).toEqual([
        [5, 10],
        [5, 61],
      ]);
      status.record(progress({ chainId: 10, indexedTimestamp: 1_020, headTimestamp: 1_061 }));
      expect(await ready()).toMatchObject({ code: 200, body: { status: 'ready' } });
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
  });
});
