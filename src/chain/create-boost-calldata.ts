import { createRequire } from 'node:module';
import { decodeAbiParameters, decodeFunctionData, type Hex, zeroAddress } from 'viem';
import { allowListInitParameters, createBoostAbi, createBoostPayloadParameters } from './abi.js';

/**
 * An allow list's members are on chain only as the init parameters in the calldata of the
 * transaction that created the boost: createBoost(bytes) carries LibZip.cdCompress(abi.encode(
 * CreateBoostPayload)), whose allowList Target's parameters are abi.encode(address owner,
 * address[] users). Solady's own JavaScript LibZip undoes the compression.
 */

const require = createRequire(import.meta.url);
const { LibZip } = require('solady') as { LibZip: { cdDecompress(data: string): string } };

export interface CreateBoostPayload {
  budget: string;
  allowList: { isBase: boolean; instance: string; parameters: Hex };
  incentives: readonly { isBase: boolean; instance: string; parameters: Hex }[];
  owner: string;
}

/** The payload when `input` is a createBoost(bytes) call, else null (a budget's createBoost calls the core from a contract). */
export function decodeCreateBoostCalldata(input: Hex): CreateBoostPayload | null {
  let compressed: Hex;
  try {
    const call = decodeFunctionData({ abi: createBoostAbi, data: input });
    compressed = call.args[0];
  } catch {
    return null;
  }
  const encoded = LibZip.cdDecompress(compressed) as Hex;
  const [payload] = decodeAbiParameters(createBoostPayloadParameters, encoded);
  return payload;
}

/** The members an allow list was initialised with, or null when the parameters are not (owner, users). */
export function allowListMembers(parameters: Hex): string[] | null {
  if (parameters === '0x') return null;
  try {
    const [, users] = decodeAbiParameters(allowListInitParameters, parameters);
    return [...new Set(users.map((user) => user.toLowerCase()))].filter((user) => user !== zeroAddress);
  } catch {
    return null;
  }
}
