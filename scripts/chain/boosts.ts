import { type Boost, ERC20VariableIncentive, SignatureType } from '@boostxyz/sdk';
import { type Address, type Hex, zeroAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { type Protocol, sampleAction } from './protocol.js';

/**
 * Boosts on the real protocol (scripts/chain/protocol.ts) as its users make and claim them through
 * the SDK: what the real-protocol tests and `npm run chain:demo` share.
 */

/** PointsIncentive calls `issue(address,uint256)` on the points venue. */
export const ISSUE_SELECTOR: Hex = '0x867904b4';

/** The incentive data of a claim that carries no amount. */
export const NO_AMOUNT: Hex = `0x${'00'.repeat(32)}`;

/** The incentive data of a claim of `amount` (the variable, criteria and pegged incentives read one uint256). */
export const amountData = (amount: bigint): Hex => ERC20VariableIncentive.prototype.buildClaimData(amount);

/** A criteria incentive's reward read from a token's Transfer event: its `value` (field 2). */
export const transferCriteria = (token: Address) => ({
  criteriaType: SignatureType.EVENT,
  signature: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' as Hex,
  fieldIndex: 2,
  targetContract: token,
});

/**
 * What every boost takes besides its incentives and allow list: the funded budget, an EventAction
 * and a SignerValidator whose signer is the protocol's owner. Fresh SDK instances on each call: the
 * SDK binds an instance to the clone it made, so one must not go into two createBoost calls.
 */
export const boostBasics = (protocol: Protocol) => {
  const { core, budget, token, owner, chain } = protocol;
  return {
    protocolFee: 0n,
    budget,
    action: core.EventAction(sampleAction(token, chain.chainId)),
    validator: core.SignerValidator({ signers: [owner.address], validatorCaller: core.assertValidAddress() }),
  };
};

/**
 * A claim signed by the validator's signer (the protocol's owner) and sent through the SDK: by the
 * claimant itself (`claimIncentive`) when `sender` is the claimant, else by `sender` on the
 * claimant's behalf (`claimIncentiveFor`), so that a claimant needs no key nor ether.
 */
export async function claim(
  protocol: Protocol,
  boost: Boost,
  incentiveId: number,
  claimant: Address,
  incentiveData: Hex,
  options: { sender: PrivateKeyAccount; referrer?: Address },
): Promise<{ hash: Hex; blockNumber: bigint }> {
  const { chain, owner } = protocol;
  const data = await boost.validator.encodeClaimData({
    signer: { account: owner.address, key: '0x', privateKey: owner },
    incentiveData,
    chainId: chain.chainId,
    incentiveQuantity: boost.incentives.length,
    claimant,
    boostId: boost.id,
  });
  const core = protocol.coreAs(options.sender);
  const referrer = options.referrer ?? zeroAddress;
  const { hash } =
    options.sender.address.toLowerCase() === claimant.toLowerCase()
      ? await core.claimIncentiveRaw(boost.id, BigInt(incentiveId), referrer, data)
      : await core.claimIncentiveForRaw(boost.id, BigInt(incentiveId), referrer, data, claimant);
  const receipt = await chain.public.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 300_000 });
  if (receipt.status !== 'success') {
    throw new Error(`the claim of boost ${boost.id} incentive ${incentiveId} by ${claimant} reverted: ${await whyReverted(protocol, hash, receipt.gasUsed)}`);
  }
  return { hash, blockNumber: receipt.blockNumber };
}

/** A call frame of anvil's callTracer. */
interface CallFrame {
  to?: Address;
  gas?: Hex;
  gasUsed?: Hex;
  error?: string;
  revertReason?: string;
  output?: Hex;
  calls?: CallFrame[];
}

/** What a reverted transaction's trace says: the innermost failing call, its error and gas, and the block's time. */
async function whyReverted(protocol: Protocol, hash: Hex, gasUsed: bigint): Promise<string> {
  const { chain } = protocol;
  try {
    const transaction = await chain.public.getTransaction({ hash });
    const block = await chain.public.getBlock({ blockNumber: transaction.blockNumber });
    const trace: CallFrame = await chain.public.request({ method: 'debug_traceTransaction', params: [hash, { tracer: 'callTracer' }] } as never);
    let failing = trace;
    for (;;) {
      const inner = failing.calls?.find((call) => call.error !== undefined);
      if (!inner) break;
      failing = inner;
    }
    const frame = `${failing.to} ${failing.error ?? ''}${failing.revertReason ? ` (${failing.revertReason})` : ''} output ${failing.output ?? '0x'}`;
    return `${frame}; gas ${gasUsed} used of ${transaction.gas}; block ${block.number} at ${block.timestamp}`;
  } catch (error) {
    return `(no trace: ${(error as Error).message})`;
  }
}
