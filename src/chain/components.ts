import { type Address, decodeAbiParameters, erc20Abi, type Hex, toEventSelector, parseAbiItem, zeroAddress } from 'viem';
import {
  actionAbi,
  componentAbi,
  criteriaSelector,
  criteriaV1Parameters,
  criteriaV2Parameters,
  INTERFACE_IDS,
  incentiveAbi,
  ownerAbi,
} from './abi.js';
import { isRevert, type Rpc } from './rpc.js';

/**
 * Reads a boost's components through their view functions (chain-facts.md §2-4): an incentive's
 * variant (getComponentInterface, and for the criteria variants the size of getIncentiveCriteria)
 * and parameters, an action's steps and claimant, an allow list's type and owner. A component of a
 * type not known here comes back as `unknown` with its interface id: the caller logs and skips it.
 */

const lower = (address: string) => address.toLowerCase();

export type IncentiveRead =
  /** `balance`: what the incentive holds of its asset (null without an asset, or when the token does not answer). */
  | { known: true; type: string; params: Record<string, unknown>; balance: string | null }
  | { known: false; interfaceId: string };

export async function readInterfaceId(rpc: Rpc, address: Address, blockNumber: bigint): Promise<string | null> {
  try {
    return await rpc.withRetries(`getComponentInterface ${address}`, () =>
      rpc.client.readContract({ address, abi: componentAbi, functionName: 'getComponentInterface', blockNumber }),
    );
  } catch (error) {
    if (isRevert(error)) return null;
    throw error;
  }
}

const CGDA_INITIALIZED = toEventSelector(
  parseAbiItem('event CGDAIncentiveInitialized(address indexed asset, uint256 initialReward, uint256 rewardDecay, uint256 rewardBoost, uint256 totalBudget)'),
);

export async function readIncentive(rpc: Rpc, address: Address, blockNumber: bigint, createdAtBlock: bigint): Promise<IncentiveRead> {
  const read = await readIncentiveParams(rpc, address, blockNumber, createdAtBlock);
  if (!read.known) return read;
  const asset = typeof read.params.asset === 'string' ? (read.params.asset as Address) : null;
  return { ...read, balance: asset ? await readBalance(rpc, asset, address, blockNumber) : null };
}

async function readBalance(rpc: Rpc, asset: Address, holder: Address, blockNumber: bigint): Promise<string | null> {
  try {
    const balance = await rpc.withRetries(`balanceOf ${holder} ${asset}`, () =>
      rpc.client.readContract({ address: asset, abi: erc20Abi, functionName: 'balanceOf', args: [holder], blockNumber }),
    );
    return balance.toString();
  } catch (error) {
    if (isRevert(error)) return null;
    throw error;
  }
}

async function readIncentiveParams(
  rpc: Rpc,
  address: Address,
  blockNumber: bigint,
  createdAtBlock: bigint,
): Promise<{ known: true; type: string; params: Record<string, unknown> } | { known: false; interfaceId: string }> {
  const interfaceId = await readInterfaceId(rpc, address, blockNumber);
  const read = <T>(functionName: string): Promise<T> =>
    rpc.withRetries(`${functionName} ${address}`, () =>
      rpc.client.readContract({ address, abi: incentiveAbi, functionName: functionName as 'reward', blockNumber }) as Promise<T>,
    );
  const uint = async (functionName: string) => (await read<bigint>(functionName)).toString();
  const addr = async (functionName: string) => lower(await read<string>(functionName));
  switch (interfaceId) {
    case INTERFACE_IDS.ERC20Incentive: {
      const [asset, strategy, reward, limit] = await Promise.all([addr('asset'), read<number>('strategy'), uint('reward'), uint('limit')]);
      return { known: true, type: 'ERC20Incentive', params: { asset, strategy: Number(strategy), reward, limit } };
    }
    case INTERFACE_IDS.PointsIncentive: {
      const [venue, selector, reward, limit] = await Promise.all([addr('venue'), read<Hex>('selector'), uint('reward'), uint('limit')]);
      return { known: true, type: 'PointsIncentive', params: { venue, selector: selector.toLowerCase(), reward, limit } };
    }
    case INTERFACE_IDS.AllowListIncentive: {
      const [allowListAddress, limit] = await Promise.all([addr('allowList'), uint('limit')]);
      return { known: true, type: 'AllowListIncentive', params: { allowListAddress, limit } };
    }
    case INTERFACE_IDS.ERC20VariableIncentive: {
      const [asset, reward, limit] = await Promise.all([addr('asset'), uint('reward'), uint('limit')]);
      return { known: true, type: 'ERC20VariableIncentive', params: { asset, reward, limit } };
    }
    case INTERFACE_IDS.ERC20PeggedIncentive: {
      const [asset, peg, reward, limit] = await Promise.all([addr('asset'), addr('peg'), uint('reward'), uint('limit')]);
      return { known: true, type: 'ERC20PeggedIncentive', params: { asset, peg, reward, limit } };
    }
    case INTERFACE_IDS.ERC20VariableCriteriaIncentive:
    case INTERFACE_IDS.ERC20PeggedVariableCriteriaIncentive: {
      // The pegged variant adds a peg, and names its cap getMaxReward.
      const pegged = interfaceId === INTERFACE_IDS.ERC20PeggedVariableCriteriaIncentive;
      const [asset, peg, reward, limit, maxReward, criteria] = await Promise.all([
        addr('asset'),
        pegged ? addr('peg') : null,
        uint('reward'),
        uint('limit'),
        uint(pegged ? 'getMaxReward' : 'maxReward'),
        readCriteria(rpc, address, blockNumber),
      ]);
      const v2 = criteria.version === 2;
      const type = pegged
        ? v2 ? 'ERC20PeggedVariableCriteriaIncentiveV2' : 'ERC20PeggedVariableCriteriaIncentive'
        : v2 ? 'ERC20VariableCriteriaIncentiveV2' : 'ERC20VariableCriteriaIncentive';
      return { known: true, type, params: { asset, ...(pegged ? { peg } : {}), reward, limit, maxReward, criteria: criteria.value } };
    }
    case INTERFACE_IDS.CGDAIncentive: {
      const [asset, totalBudget, cgda, initialReward] = await Promise.all([
        addr('asset'),
        uint('totalBudget'),
        read<readonly [bigint, bigint, bigint, bigint]>('cgdaParams'),
        readCgdaInitialReward(rpc, address, createdAtBlock),
      ]);
      return {
        known: true,
        type: 'CGDAIncentive',
        params: { asset, initialReward: initialReward ?? cgda[3].toString(), rewardDecay: cgda[0].toString(), rewardBoost: cgda[1].toString(), totalBudget },
      };
    }
    default:
      return { known: false, interfaceId: interfaceId ?? 'none (getComponentInterface reverted)' };
  }
}

/** The initial reward is only in the init event, emitted when the boost's transaction initialised the clone. */
async function readCgdaInitialReward(rpc: Rpc, address: Address, createdAtBlock: bigint): Promise<string | null> {
  const logs = await rpc.withRetries(`CGDAIncentiveInitialized ${address}`, () =>
    rpc.client.request({
      method: 'eth_getLogs',
      params: [{ address, topics: [CGDA_INITIALIZED], fromBlock: `0x${createdAtBlock.toString(16)}`, toBlock: `0x${createdAtBlock.toString(16)}` }],
    }),
  );
  const log = (logs as { data: Hex }[])[0];
  if (!log) return null;
  return decodeAbiParameters([{ type: 'uint256' }], log.data.slice(0, 66) as Hex)[0].toString();
}

/** V1 and V2 share an interface id; the size of the answer tells them apart (4 or 5 words). */
async function readCriteria(rpc: Rpc, address: Address, blockNumber: bigint): Promise<{ version: 1 | 2; value: Record<string, unknown> }> {
  const { data } = await rpc.withRetries(`getIncentiveCriteria ${address}`, () =>
    rpc.client.call({ to: address, data: criteriaSelector, blockNumber }),
  );
  const raw = data ?? '0x';
  const words = (raw.length - 2) / 64;
  const version = words >= 5 ? 2 : 1;
  const [criteria] = decodeAbiParameters(version === 2 ? criteriaV2Parameters : criteriaV1Parameters, raw);
  const value: Record<string, unknown> = {
    criteriaType: criteria.criteriaType,
    signature: criteria.signature.toLowerCase(),
    fieldIndex: criteria.fieldIndex,
    targetContract: lower(criteria.targetContract),
  };
  if (version === 2) value.valueType = (criteria as { valueType: number }).valueType;
  return { version, value };
}

export interface ActionStepRead {
  chainId: number;
  targetContract: string;
  claimant: null;
  signature: string;
  signatureName: string;
  signatureType: 'event' | 'function';
  actionType: number;
  parameters: { filterType: number; fieldType: number; fieldIndex: number; filterData: string };
}

export interface ActionClaimantRead {
  signature: string;
  signatureName: string;
  signatureType: 'event' | 'function';
  fieldIndex: number;
  targetContract: string;
  chainId: number;
}

/** Action SignatureType: EVENT = 0, FUNC = 1 (the reverse of an incentive criteria's type). */
const signatureType = (value: number) => (value === 1 ? 'function' : 'event');

export type ActionRead = { known: true; steps: ActionStepRead[]; claimant: ActionClaimantRead } | { known: false; interfaceId: string };

export async function readAction(rpc: Rpc, address: Address, blockNumber: bigint): Promise<ActionRead> {
  const interfaceId = await readInterfaceId(rpc, address, blockNumber);
  if (interfaceId !== INTERFACE_IDS.EventAction) return { known: false, interfaceId: interfaceId ?? 'none (getComponentInterface reverted)' };
  const [steps, claimant] = await Promise.all([
    rpc.withRetries(`getActionSteps ${address}`, () => rpc.client.readContract({ address, abi: actionAbi, functionName: 'getActionSteps', blockNumber })),
    rpc.withRetries(`getActionClaimant ${address}`, () =>
      rpc.client.readContract({ address, abi: actionAbi, functionName: 'getActionClaimant', blockNumber }),
    ),
  ]);
  // The SDK stores four steps, repeating the last one; it shows them without the repeats.
  const seen = new Set<string>();
  const distinct: ActionStepRead[] = [];
  for (const step of steps) {
    const read: ActionStepRead = {
      chainId: Number(step.chainid),
      targetContract: lower(step.targetContract),
      claimant: null,
      signature: step.signature.toLowerCase(),
      signatureName: '',
      signatureType: signatureType(step.signatureType),
      actionType: step.actionType,
      parameters: {
        filterType: step.actionParameter.filterType,
        fieldType: step.actionParameter.fieldType,
        fieldIndex: step.actionParameter.fieldIndex,
        filterData: step.actionParameter.filterData.toLowerCase(),
      },
    };
    const key = JSON.stringify(read);
    if (seen.has(key)) continue;
    seen.add(key);
    distinct.push(read);
  }
  return {
    known: true,
    steps: distinct,
    claimant: {
      signature: claimant.signature.toLowerCase(),
      signatureName: '',
      signatureType: signatureType(claimant.signatureType),
      fieldIndex: claimant.fieldIndex,
      targetContract: lower(claimant.targetContract),
      chainId: Number(claimant.chainid),
    },
  };
}

export type AllowListRead =
  | { known: true; type: 'SimpleAllowList' | 'SimpleDenyList' | 'OpenAllowList' | 'OffchainAccessList'; owner: string }
  | { known: false; interfaceId: string };

export async function readAllowList(rpc: Rpc, address: Address, blockNumber: bigint): Promise<AllowListRead> {
  const [interfaceId, owner] = await Promise.all([
    readInterfaceId(rpc, address, blockNumber),
    rpc
      .withRetries(`owner ${address}`, () => rpc.client.readContract({ address, abi: ownerAbi, functionName: 'owner', blockNumber }))
      .catch((error: unknown) => {
        if (isRevert(error)) return zeroAddress;
        throw error;
      }),
  ]);
  const ownerAddress = lower(owner);
  switch (interfaceId) {
    case INTERFACE_IDS.SimpleAllowList:
      return { known: true, type: 'SimpleAllowList', owner: ownerAddress };
    case INTERFACE_IDS.SimpleDenyList:
      // The SDK's open allow list is a deny list nobody owns.
      return { known: true, type: ownerAddress === zeroAddress ? 'OpenAllowList' : 'SimpleDenyList', owner: ownerAddress };
    case INTERFACE_IDS.OffchainAccessList:
      return { known: true, type: 'OffchainAccessList', owner: ownerAddress };
    default:
      return { known: false, interfaceId: interfaceId ?? 'none (getComponentInterface reverted)' };
  }
}
