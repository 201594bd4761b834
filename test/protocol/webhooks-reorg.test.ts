import { randomBytes } from 'node:crypto';
import { type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliveryRepository, createWebhookEndpointsRepository } from '../../src/repositories/webhooks.repository.js';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.js';
import { SecretBox } from '../../src/webhooks/secret-box.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { generateSecret } from '../../src/webhooks/signing.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { indexOnce } from '../chain/chain-fixture.js';
import { CLAIMANTS, claim, startWorld, type World } from './world.js';

const NONE: Hex = '0x0000000000000000000000000000000000000000000000000000000000000000';

/**
 * A reorganisation on anvil (the protocol's own bytecode, from @boostxyz/sdk) orphans a claim the
 * indexer wrote: the endpoint got its claim.written, and gets its claim.removed like any other event.
 */
describe('webhooks through a chain reorganisation (SDK bytecode on anvil)', () => {
  let world: World;
  let database: TestDatabase;
  let core: Address;
  let deliverer: WebhookDeliverer;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    world = await startWorld();
    core = world.protocol.core.assertValidAddress();
    database = await createTestDatabase();
    await indexOnce(world.chain, core, database);
    const key = randomBytes(32).toString('base64');
    receiver.secret = generateSecret();
    const url = await receiver.listen();
    await createWebhookEndpointsRepository(database.db).add({
      url,
      description: null,
      types: ['claim.written', 'claim.removed'],
      chainIds: [world.chain.chainId],
      campaignIds: null,
      claimant: null,
      sealedSecret: new SecretBox(key).seal(receiver.secret),
    });
    deliverer = new WebhookDeliverer({
      repository: createWebhookDeliveryRepository(database.db),
      secretBox: new SecretBox(key),
      sender: new WebhookSender({ timeoutMs: 2000, allowPrivate: true }),
      concurrency: 4,
      pollMs: 20,
      timeoutMs: 2000,
      disableAfterSeconds: 3600,
      retentionSeconds: 259_200,
      logger: { warn: () => undefined, error: () => undefined },
    });
    deliverer.start();
  }, 120_000);

  afterAll(async () => {
    await deliverer?.close();
    await receiver.close();
    await database?.close();
    await world?.chain.stop();
  });

  it('delivers claim.written, then claim.removed for the claim a reorganisation orphans', async () => {
    const snapshot = await world.chain.snapshot();
    const claimant = CLAIMANTS[2];
    await claim(world, world.boosts[0]!, 0, claimant, NONE);
    await indexOnce(world.chain, core, database);
    await receiver.until((messages) => messages.length >= 1);
    const written = JSON.parse(receiver.messages[0]!.body) as { type: string; data: { txHash: string; claimant: string } };
    expect(written.type).toBe('claim.written');
    expect(written.data.claimant).toBe(claimant.address.toLowerCase());

    await world.chain.revert(snapshot);
    await world.chain.mine(3);
    await indexOnce(world.chain, core, database);
    await receiver.until((messages) => messages.length >= 2);
    const removed = JSON.parse(receiver.messages[1]!.body) as { type: string; data: { txHash: string } };
    expect(removed.type).toBe('claim.removed');
    expect(removed.data.txHash).toBe(written.data.txHash);
    expect(receiver.messages.every((message) => message.verified)).toBe(true);
    expect(receiver.messages.map((message) => message.id)).toEqual([...new Set(receiver.messages.map((message) => message.id))]);
  });
});
