import { type Address, decodeAbiParameters, decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex, hexToBytes, size } from 'viem';
import { isRevert, type Rpc } from './rpc.js';

/**
 * A token's decimals, symbol and name as its contract answers them (an import never sets decimals), read at
 * one block. Contracts answer many ways: a revert, no such function (no data), decimals out of
 * range, a bytes32 symbol or name (old tokens such as MKR), a string that is not text. What is not
 * sensible is left out (null) and said in `problems`, never guessed; a fault of the endpoint is
 * retried (rpc.withRetries), as every read of the indexer is.
 */

export interface TokenFacts {
  /** 0 to 77 (what the tokens table holds), or null: then the token has no metadata. */
  decimals: number | null;
  symbol: string | null;
  name: string | null;
  /** What was not sensible, in words for the log: `decimals() reverted`. Empty when all three were read. */
  problems: string[];
}

/** The most decimals a token may have: 10^77 is the largest power of ten below 2^256. */
export const MAX_DECIMALS = 77;
/** Longer than this, a symbol or name is not one. */
export const MAX_TEXT_LENGTH = 200;

type Answer = { data: Hex } | { problem: string };

export async function readTokenFacts(rpc: Rpc, address: Address, blockNumber: bigint): Promise<TokenFacts> {
  const [decimals, symbol, name] = await Promise.all([
    call(rpc, address, 'decimals', blockNumber),
    call(rpc, address, 'symbol', blockNumber),
    call(rpc, address, 'name', blockNumber),
  ]);
  const problems: string[] = [];
  const take = <T>(result: { value: T } | { problem: string }): T | null => {
    if ('value' in result) return result.value;
    problems.push(result.problem);
    return null;
  };
  return {
    decimals: take('data' in decimals ? decodeDecimals(decimals.data) : decimals),
    symbol: take('data' in symbol ? decodeText('symbol', symbol.data) : symbol),
    name: take('data' in name ? decodeText('name', name.data) : name),
    problems,
  };
}

async function call(rpc: Rpc, address: Address, functionName: 'decimals' | 'symbol' | 'name', blockNumber: bigint): Promise<Answer> {
  try {
    const { data } = await rpc.withRetries(`${functionName} ${address}`, () =>
      rpc.client.call({ to: address, data: encodeFunctionData({ abi: erc20Abi, functionName }), blockNumber }),
    );
    // No code at the address, or no such function without a fallback that reverts: an empty answer.
    if (data === undefined || data === '0x') return { problem: `${functionName}() returned nothing` };
    return { data };
  } catch (error) {
    if (isRevert(error)) return { problem: `${functionName}() reverted` };
    throw error;
  }
}

/** decimals() as uint8 (some tokens declare uint256): the first word, 0 to 77. */
export function decodeDecimals(data: Hex): { value: number } | { problem: string } {
  if (size(data) < 32) return { problem: `decimals() returned ${size(data)} bytes, not a number` };
  const word = BigInt(data.slice(0, 66));
  if (word > BigInt(MAX_DECIMALS)) return { problem: `decimals() returned ${word}, not 0 to ${MAX_DECIMALS}` };
  return { value: decodeFunctionResult({ abi: erc20Abi, functionName: 'decimals', data: data.slice(0, 66) as Hex }) };
}

/**
 * symbol() or name(): an ABI string, or (an answer of exactly one word) a bytes32 holding the text
 * padded with zero bytes. Either is sensible when it is UTF-8 with no control characters, not
 * empty once trimmed and at most MAX_TEXT_LENGTH characters.
 */
export function decodeText(functionName: 'symbol' | 'name', data: Hex): { value: string } | { problem: string } {
  let bytes: Uint8Array;
  try {
    // A string is encoded as bytes are: offset, length, the bytes.
    bytes = size(data) === 32 ? hexToBytes(data) : hexToBytes(decodeAbiParameters([{ type: 'bytes' }], data)[0]);
  } catch {
    return { problem: `${functionName}() returned ${size(data)} bytes, neither a string nor a bytes32` };
  }
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end)).trim();
  } catch {
    return { problem: `${functionName}() returned bytes that are not UTF-8 text` };
  }
  if (text === '') return { problem: `${functionName}() returned an empty text` };
  if (/\p{Cc}/u.test(text)) return { problem: `${functionName}() returned text with control characters` };
  if (text.length > MAX_TEXT_LENGTH) return { problem: `${functionName}() returned ${text.length} characters, more than ${MAX_TEXT_LENGTH}` };
  return { value: text };
}
