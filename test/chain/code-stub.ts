import { type Address, concat, type Hex, numberToHex, size, toFunctionSelector } from 'viem';
import type { LocalChain } from '../../scripts/chain/local-chain.js';

/**
 * A contract that answers chosen functions with chosen bytes, for answers no Solidity source here
 * gives (a bytes32 symbol, decimals out of range, bytes that are not UTF-8): EVM code assembled by
 * hand and put at an address with anvil_setCode. A call of another function reverts.
 */

const word16 = (value: number) => numberToHex(value, { size: 2 });

/** `answers` by function signature (`symbol()`): the return data, or 'revert'. */
export function stubCode(answers: Record<string, Hex | 'revert'>): Hex {
  const entries = Object.entries(answers).map(([signature, answer]) => ({ selector: toFunctionSelector(signature), answer }));
  // PUSH1 0 CALLDATALOAD PUSH1 0xe0 SHR: the selector.
  const prologue: Hex = '0x60003560e01c';
  const dispatchSize = 11; // DUP1 PUSH4 selector EQ PUSH2 dest JUMPI
  const fallback: Hex = '0x600080fd'; // PUSH1 0 DUP1 REVERT
  const bodySize = (answer: Hex | 'revert') => (answer === 'revert' ? 5 : 16);
  let offset = 6 + dispatchSize * entries.length + 4;
  const destinations = entries.map(({ answer }) => {
    const destination = offset;
    offset += bodySize(answer);
    return destination;
  });
  let dataOffset = offset;
  const bodies: Hex[] = [];
  const data: Hex[] = [];
  for (const { answer } of entries) {
    if (answer === 'revert') {
      bodies.push('0x5b600080fd'); // JUMPDEST PUSH1 0 DUP1 REVERT
      continue;
    }
    const length = size(answer);
    // JUMPDEST; CODECOPY(0, dataOffset, length); RETURN(0, length)
    bodies.push(`0x5b61${word16(length).slice(2)}61${word16(dataOffset).slice(2)}60003961${word16(length).slice(2)}6000f3`);
    data.push(answer);
    dataOffset += length;
  }
  const dispatch = entries.map(
    ({ selector }, index) => `0x8063${selector.slice(2)}1461${word16(destinations[index]!).slice(2)}57` as Hex,
  );
  return concat([prologue, ...dispatch, fallback, ...bodies, ...data]);
}

export async function setStub(chain: LocalChain, address: Address, answers: Record<string, Hex | 'revert'>): Promise<void> {
  const request = chain.public.request as (args: { method: string; params: unknown[] }) => Promise<unknown>;
  await request({ method: 'anvil_setCode', params: [address, stubCode(answers)] });
}

/** 0x followed by `n` as one ABI word. */
export const uintWord = (n: bigint | number): Hex => numberToHex(BigInt(n), { size: 32 });

/** `text` as a bytes32, padded on the right with zero bytes. */
export const bytes32Text = (text: string): Hex => {
  const bytes = new TextEncoder().encode(text);
  return `0x${Buffer.from(bytes).toString('hex').padEnd(64, '0')}`;
};
