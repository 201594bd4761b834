import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claimFor, createBoost, type Deployed, deploy, type LocalChain, userAddress } from '../../scripts/chain/local-chain.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createCampaigns, importRecords, indexOnce, operatorRecords, startChain } from './chain-fixture.js';

/**
 * A chain reorganisation on anvil: a snapshot, blocks with a claim and a new boost, indexed; then a
 * revert to the snapshot and other blocks at the same heights. The orphaned claim and boost are
 * deleted through the ingest path (totals and documents follow), the new branch is indexed.
 */

describe('indexer across a chain reorganisation', () => {
  let chain: LocalChain;
  let deployed: Deployed;
  let database: TestDatabase;

  beforeAll(async () => {
    ({ chain, deployed } = await startChain());
    database = await createTestDatabase();
    await importRecords(database, operatorRecords(chain.chainId));
    await createCampaigns(chain, deployed);
  });

  afterAll(async () => {
    await database?.close();
    await chain?.stop();
  });

  const claims = () =>
    queryRows<{ tx_hash: string; claimant: string; public_id: string }>(
      database.db,
      sql`SELECT k.tx_hash, k.claimant, c.public_id FROM claims AS k JOIN campaigns AS c ON c.key = k.campaign_key ORDER BY k.claimant`,
    );
  const totals = async () =>
    (await queryRows<{ total_claims: string }>(database.db, sql`SELECT total_claims::text FROM incentives AS i JOIN campaigns AS c ON c.key = i.campaign_key WHERE c.identifier = 0 AND i.position = 0`))[0]!
      .total_claims;

  it('deletes what the orphaned blocks wrote and indexes the new branch', async () => {
    await indexOnce(chain, deployed.core, database);
    const snapshot = await chain.snapshot();
    const head = await chain.public.getBlockNumber();

    // The branch that will be orphaned: a claim and a third boost.
    await claimFor(chain, deployed.core, 0n, 0n, userAddress(10));
    const extra = await deploy(chain, 'TestERC20Incentive', ['0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 0, 5n, 10n]);
    await createBoost(chain, deployed.core, {
      owner: chain.account,
      budget: chain.account,
      validator: deployed.core,
      action: deployed.action,
      allowList: { address: deployed.allowList, owner: chain.account, members: [] },
      incentives: [extra],
    });
    await indexOnce(chain, deployed.core, database);
    expect((await claims()).map((claim) => claim.claimant)).toEqual([userAddress(10)]);
    expect(await totals()).toBe('1');
    const [{ n: before } = { n: 0 }] = await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM campaigns`);
    expect(before).toBe(3);

    // Revert, and other blocks at the same heights: another claimant, no third boost, then more blocks.
    await chain.revert(snapshot);
    expect(await chain.public.getBlockNumber()).toBe(head);
    await claimFor(chain, deployed.core, 0n, 0n, userAddress(11));
    await chain.mine(3);
    await indexOnce(chain, deployed.core, database);

    const after = await claims();
    expect(after.map((claim) => claim.claimant)).toEqual([userAddress(11)]);
    // No claim whose transaction the chain does not have.
    for (const claim of after) {
      const receipt = await chain.public.getTransactionReceipt({ hash: claim.tx_hash as `0x${string}` });
      expect(receipt.status).toBe('success');
    }
    expect(await totals()).toBe('1');
    const [{ n } = { n: 0 }] = await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM campaigns`);
    expect(n).toBe(2);
    const [checkpoint] = await queryRows<{ block_number: string; block_hash: string }>(database.db, sql`SELECT block_number::text, block_hash FROM indexer_checkpoints`);
    const block = await chain.public.getBlock({ blockNumber: BigInt(checkpoint!.block_number) });
    expect(checkpoint!.block_hash).toBe(block.hash);
    expect(block.number).toBe(await chain.public.getBlockNumber());
  });

  it('a revert to a shorter chain (the checkpoint block is gone) is undone as well', async () => {
    const snapshot = await chain.snapshot();
    await claimFor(chain, deployed.core, 0n, 1n, userAddress(12), 10n ** 18n);
    await chain.mine(5);
    await indexOnce(chain, deployed.core, database);
    expect((await claims()).map((claim) => claim.claimant)).toContain(userAddress(12));
    await chain.revert(snapshot);
    await indexOnce(chain, deployed.core, database);
    expect((await claims()).map((claim) => claim.claimant)).toEqual([userAddress(11)]);
  });
});
