import { prepareSignerValidatorClaimDataPayload } from '@boostxyz/sdk';
import fc from 'fast-check';
import { type Address, getAddress, type Hex, parseEther, toHex, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amountData, boostBasics } from '../../scripts/chain/boosts.js';
import { type LocalChain, startAnvil } from '../../scripts/chain/local-chain.js';
import { deployProtocol, devAccount, type Protocol } from '../../scripts/chain/protocol.js';
import { claimDigest, signClaimPayload, signerValidatorAbi } from '../../src/chain/claim-payload.js';

/**
 * The bytes the service signs, against the protocol's own reference: the SDK's
 * `prepareSignerValidatorClaimDataPayload` for the same key and inputs, and the deployed
 * validator's `hashSignerData` and `claimIncentive` on anvil.
 */

const address = (bytes: Uint8Array) => getAddress(toHex(bytes));
const input = fc.record({
  chainId: fc.integer({ min: 1, max: 2 ** 31 }),
  validator: fc.uint8Array({ minLength: 20, maxLength: 20 }).map(address),
  boostId: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
  incentiveQuantity: fc.integer({ min: 1, max: 255 }),
  claimant: fc.uint8Array({ minLength: 20, maxLength: 20 }).map(address),
  incentiveData: fc.uint8Array({ maxLength: 96 }).map((bytes) => toHex(bytes)),
});

describe('claim payload', () => {
  it("equals the SDK's prepareSignerValidatorClaimDataPayload byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(input, async (claim) => {
        const key = generatePrivateKey();
        const account = privateKeyToAccount(key);
        const ours = await signClaimPayload(account, claim);
        const sdk = await prepareSignerValidatorClaimDataPayload({ signer: { account: account.address, key, privateKey: account }, ...claim });
        expect(ours).toBe(sdk);
      }),
      { numRuns: 60 },
    );
  });

  describe('on the real protocol (SDK bytecode on anvil)', () => {
    let chain: LocalChain;
    let protocol: Protocol;
    let validator: Address;
    let boostId: bigint;

    beforeAll(async () => {
      chain = await startAnvil();
      protocol = await deployProtocol(chain);
      const boost = await protocol.core.createBoost({
        ...boostBasics(protocol),
        maxParticipants: 10n,
        allowList: protocol.core.OpenAllowList(),
        incentives: [protocol.core.ERC20VariableIncentive({ asset: protocol.token, reward: 0n, limit: parseEther('20'), manager: protocol.budget.assertValidAddress() })],
      });
      validator = boost.validator.assertValidAddress();
      boostId = boost.id;
    });
    afterAll(async () => {
      await chain?.stop();
    });

    it("signs the digest the validator's hashSignerData computes", async () => {
      for (const [claimant, incentiveData] of [
        [devAccount(1).address, amountData(parseEther('3'))],
        [devAccount(2).address, '0x'],
        [zeroAddress, `0x${'ff'.repeat(64)}`],
      ] as [Address, Hex][]) {
        const claim = { chainId: chain.chainId, validator, boostId, incentiveQuantity: 1, claimant, incentiveData };
        const onChain = await chain.public.readContract({
          address: validator,
          abi: signerValidatorAbi,
          functionName: 'hashSignerData',
          args: [boostId, 1, claimant, incentiveData],
        });
        expect(claimDigest(claim)).toBe(onChain);
      }
      expect(await chain.public.readContract({ address: validator, abi: signerValidatorAbi, functionName: 'signers', args: [protocol.owner.address] })).toBe(true);
      expect(await chain.public.readContract({ address: validator, abi: signerValidatorAbi, functionName: 'signers', args: [devAccount(7).address] })).toBe(false);
    });

    it('is claimed on chain once; the same payload again reverts', async () => {
      const claimant = devAccount(1);
      const data = await signClaimPayload(protocol.owner, {
        chainId: chain.chainId,
        validator,
        boostId,
        incentiveQuantity: 1,
        claimant: claimant.address,
        incentiveData: amountData(parseEther('3')),
      });
      const core = protocol.coreAs(claimant);
      const { hash } = await core.claimIncentiveRaw(boostId, 0n, zeroAddress, data);
      expect((await chain.public.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success');
      await expect(core.claimIncentiveRaw(boostId, 0n, zeroAddress, data)).rejects.toThrow();
    });
  });
});
