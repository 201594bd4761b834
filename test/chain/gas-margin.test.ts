import { BoostCore } from '@boostxyz/sdk';
import { parseEther, type Transport } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boostBasics, claim, NO_AMOUNT } from '../../scripts/chain/boosts.js';
import { type LocalChain, startAnvil } from '../../scripts/chain/local-chain.js';
import { deployProtocol, devAccount, type Protocol, sdkConfig } from '../../scripts/chain/protocol.js';

/**
 * The race behind a claim that reverted now and then in `npm run chain:demo`: viem fills a local
 * account's transaction (`eth_fillTransaction`) in a block at the current second. A CGDA incentive
 * stores `block.timestamp` as its last claim's time; filled in the second its boost was created,
 * that store changes nothing and costs little, and mined a second later it changes the slot and
 * needs more gas than was filled in. anvilTransport's margin must cover it on that path too.
 * The two seconds are forced here (`evm_setNextBlockTimestamp`) rather than waited for.
 */
describe('anvilTransport: gas filled in one second, mined in the next', () => {
  let chain: LocalChain;
  let protocol: Protocol;

  beforeAll(async () => {
    chain = await startAnvil();
    protocol = await deployProtocol(chain);
  }, 120_000);
  afterAll(() => chain?.stop());

  it("a CGDA claim filled in its boost's creation second and mined a second later succeeds", async () => {
    const { core, token } = protocol;
    const manager = protocol.budget.assertValidAddress();
    const cgda = core.CGDAIncentive({ asset: token, initialReward: parseEther('1'), rewardDecay: parseEther('0.1'), rewardBoost: parseEther('0.05'), totalBudget: parseEther('10'), manager });
    const boost = await core.createBoost({ ...boostBasics(protocol), maxParticipants: 0n, allowList: core.OpenAllowList(), incentives: [cgda] });
    const created = (await chain.public.getBlock()).timestamp;
    const setNextTimestamp = (timestamp: bigint) => chain.public.request({ method: 'evm_setNextBlockTimestamp', params: [Number(timestamp)] } as never);

    // The claim is simulated and filled in a block of the creation's second...
    await setNextTimestamp(created);
    const nextSecondOnSend: Transport = (parameters) => {
      const transport = chain.transport(parameters);
      const request = (async (args: { method: string }) => {
        // ...and mined in the next one.
        if (args.method === 'eth_sendRawTransaction') await setNextTimestamp(created + 1n);
        return transport.request(args as never);
      }) as typeof transport.request;
      return { ...transport, request };
    };
    const claimant = devAccount(3);
    const claimantsCore = new BoostCore({ config: sdkConfig({ ...chain, transport: nextSecondOnSend }, claimant), account: claimant, address: core.assertValidAddress() });

    const { blockNumber } = await claim({ ...protocol, coreAs: () => claimantsCore }, boost, 0, claimant.address, NO_AMOUNT, { sender: claimant });
    expect((await chain.public.getBlock({ blockNumber })).timestamp).toBe(created + 1n);
  }, 60_000);
});
