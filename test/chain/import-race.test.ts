import { pino } from 'pino';
import { encodeFunctionData } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boostCoreAbi } from '../../src/chain/abi.js';
import { createRpc, type Rpc } from '../../src/chain/rpc.js';
import { StaleBasisError } from '../../src/indexer/basis.js';
import { CoreIndexer } from '../../src/indexer/core-indexer.js';
import { createIndexer } from '../../src/indexer/indexer.js';
import { loadCheckpoint, storedAllowLists, storedCampaigns } from '../../src/indexer/store.js';
import type { CampaignRecord } from '../../src/ingest/records.js';
import { type Deployed, deploy, type LocalChain, send, VENUE } from '../../scripts/chain/local-chain.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createCampaigns, importRecords, indexOnce, operatorRecords, SETTINGS, startChain } from './chain-fixture.js';
import { type FaultyRpc, startFaultyRpc } from './faulty-rpc.js';

/**
 * An operator's import that lands while the indexer builds a block range (after it read the stored
 * campaign, before it writes) is not overwritten: the write finds the campaign changed, rolls back,
 * and the range is built again from what the import wrote. The import runs during the indexer's
 * getBoost call, so the race happens every time.
 */

describe('indexer and an import racing for a campaign', () => {
  let chain: LocalChain;
  let deployed: Deployed;
  let proxy: FaultyRpc;
  let indexed: TestDatabase;
  let boost0: () => Promise<CampaignRecord>;

  beforeAll(async () => {
    ({ chain, deployed } = await startChain());
    proxy = await startFaultyRpc(chain.url);
    indexed = await createTestDatabase();
    await importRecords(indexed, operatorRecords(chain.chainId));
    await createCampaigns(chain, deployed);
    await indexOnce(chain, deployed.core, indexed);
    boost0 = async () => (await storedCampaigns(indexed, { chainId: chain.chainId, core: deployed.core.toLowerCase() }, ['0'])).get('0')!;
    // addIncentiveToBoost: the next range rewrites boost 0 from the stored campaign and getBoost().
    const points = await deploy(chain, 'TestPointsIncentive', [VENUE, '0x12345678', 3n, 100n]);
    await send(chain, deployed.core, 'TestBoostCore', 'addIncentiveToBoost', [0n, { isBase: false, instance: points, parameters: '0x' }]);
  });

  afterAll(async () => {
    await proxy?.close();
    await indexed?.close();
    await chain?.stop();
  });

  /** The Rpc, with `during` run once inside the call of getBoost(0) (after buildBatch read the stored campaign). */
  function rpcRunningDuringGetBoost(during: () => Promise<void>): Rpc {
    const rpc = createRpc({ url: chain.url, timeoutMs: 5000, baseBackoffMs: 20, maxBackoffMs: 200 });
    let pending = true;
    const readContract = rpc.client.readContract.bind(rpc.client) as (parameters: { functionName: string; args?: readonly unknown[] }) => Promise<unknown>;
    const client = new Proxy(rpc.client, {
      get(target, property, receiver) {
        if (property !== 'readContract') return Reflect.get(target, property, receiver) as unknown;
        return async (parameters: { functionName: string; args?: readonly unknown[] }) => {
          if (pending && parameters.functionName === 'getBoost' && parameters.args?.[0] === 0n) {
            pending = false;
            await during();
          }
          return readContract(parameters);
        };
      },
    });
    return { ...rpc, client };
  }

  it('fails the step with StaleBasisError, writes nothing, and the next step keeps the imported name', async () => {
    const id = { chainId: chain.chainId, core: deployed.core.toLowerCase() };
    const before = await boost0();
    expect(before.incentives).toHaveLength(2);
    const checkpoint = await loadCheckpoint(indexed, id);
    const indexer = new CoreIndexer({
      chainId: chain.chainId,
      core: deployed.core,
      startBlock: 0n,
      confirmations: 0,
      blockRange: 2000,
      reorgDepth: 256,
      rpc: rpcRunningDuringGetBoost(() => importRecords(indexed, [{ ...before, campaignName: 'Named during the read' }])),
      database: indexed,
      logger: pino({ level: 'silent' }),
    });

    const failure = await indexer.step().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StaleBasisError);
    expect((failure as Error).message).toBe(`an import changed campaign ${id.chainId}:${id.core}:0 while its blocks were read; reading them again`);
    // Rolled back whole: the import's name, the old incentives, the old checkpoint.
    expect(await boost0()).toEqual({ ...before, campaignName: 'Named during the read' });
    expect(await loadCheckpoint(indexed, id)).toEqual(checkpoint);

    expect(await indexer.step()).toBe('progressed');
    const after = await boost0();
    expect(after.campaignName).toBe('Named during the read');
    expect(after.incentives.map((incentive) => incentive.type)).toEqual(['ERC20Incentive', 'ERC20VariableCriteriaIncentiveV2', 'PointsIncentive']);
    expect((await loadCheckpoint(indexed, id))!.blockNumber).toBeGreaterThan(checkpoint!.blockNumber);
  });

  it('the indexer loop builds the range again at once, with a warning and no error, when an import created the campaign it read as absent', async () => {
    const fresh = await createTestDatabase();
    try {
      await importRecords(fresh, operatorRecords(chain.chainId));
      // What the operator imports: boost 0 as the other database holds it (with its allow list),
      // named, and with a chain field the indexer corrects.
      const campaign = await boost0();
      const allowList = (await storedAllowLists(indexed, chain.chainId, [campaign.allowList!.contractAddress])).get(campaign.allowList!.contractAddress)!;
      const getBoost0 = encodeFunctionData({ abi: boostCoreAbi, functionName: 'getBoost', args: [0n] });
      let pending = true;
      proxy.beforeForward = async (request) => {
        const call = request.params?.[0];
        if (!pending || request.method !== 'eth_call' || call?.data !== getBoost0) return;
        pending = false;
        await importRecords(fresh, [allowList, { ...campaign, campaignName: 'Imported before the indexer wrote it', maxParticipants: '7' }]);
      };
      const logs: { level: number; msg: string; reason?: string }[] = [];
      const rpcErrors: unknown[] = [];
      const indexer = createIndexer(
        [{ chainId: chain.chainId, rpcUrl: proxy.url, cores: [{ address: deployed.core, startBlock: 0n }] }],
        fresh,
        SETTINGS,
        pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line) as (typeof logs)[number]) }),
        { onRpcError: (_chainId, error) => rpcErrors.push(error) },
      );
      await indexer.run({ once: true });

      expect(pending).toBe(false);
      const retried = logs.filter((entry) => entry.msg === 'a block range is built again after an import');
      expect(retried).toHaveLength(1);
      expect(retried[0]).toMatchObject({ level: 40, reason: expect.stringContaining(`campaign ${chain.chainId}:${deployed.core.toLowerCase()}:0`) as unknown });
      expect(logs.filter((entry) => entry.level >= 50)).toEqual([]);
      expect(rpcErrors).toEqual([]);
      const written = (await storedCampaigns(fresh, { chainId: chain.chainId, core: deployed.core.toLowerCase() }, ['0'])).get('0')!;
      expect(written.campaignName).toBe('Imported before the indexer wrote it');
      expect(written.maxParticipants).toBe('100');
      expect(written.incentives).toHaveLength(3);
    } finally {
      proxy.beforeForward = undefined;
      await fresh.close();
    }
  });
});
