import { type Address, encodeAbiParameters, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpc, type Rpc } from '../../src/chain/rpc.js';
import { readTokenFacts } from '../../src/chain/token-facts.js';
import { deploy, type LocalChain, startAnvil } from '../../scripts/chain/local-chain.js';
import { bytes32Text, setStub, uintWord } from './code-stub.js';

/**
 * readTokenFacts against contracts on anvil: the test tokens of chain/contracts/TestTokens.sol, and
 * hand-assembled contracts answering what real tokens answer (a bytes32 symbol and name as MKR does,
 * decimals out of range, bytes that are not text).
 */

const abiString = (text: string): Hex => encodeAbiParameters([{ type: 'string' }], [text]);
const abiBytes = (bytes: Hex): Hex => encodeAbiParameters([{ type: 'bytes' }], [bytes]);

describe('token facts read from the contract', () => {
  let chain: LocalChain;
  let rpc: Rpc;
  const stub = (n: number): Address => `0x${'5'.repeat(38)}${n.toString(16).padStart(2, '0')}`;

  beforeAll(async () => {
    chain = await startAnvil();
    rpc = createRpc({ url: chain.url, timeoutMs: 5000, baseBackoffMs: 20, maxBackoffMs: 200 });
  });

  afterAll(async () => {
    await chain?.stop();
  });

  const read = async (address: Address) => readTokenFacts(rpc, address, await chain.public.getBlockNumber());

  it('reads an ERC-20 that answers all three', async () => {
    const token = await deploy(chain, 'TestToken', ['Test Dollar', 'TUSD', 6]);
    expect(await read(token)).toEqual({ decimals: 6, symbol: 'TUSD', name: 'Test Dollar', problems: [] });
  });

  it('leaves out what TestBrokenToken answers: decimals() reverts, symbol() is a number, name() does not exist', async () => {
    const token = await deploy(chain, 'TestBrokenToken');
    expect(await read(token)).toEqual({
      decimals: null,
      symbol: null,
      name: null,
      problems: ['decimals() reverted', 'symbol() returned text with control characters', 'name() reverted'],
    });
  });

  it('decodes a bytes32 symbol and name (as MKR has them) and decimals declared uint256', async () => {
    await setStub(chain, stub(1), { 'decimals()': uintWord(18), 'symbol()': bytes32Text('MKR'), 'name()': bytes32Text('Maker') });
    expect(await read(stub(1))).toEqual({ decimals: 18, symbol: 'MKR', name: 'Maker', problems: [] });
  });

  it('trims a string padded with spaces and zero bytes', async () => {
    await setStub(chain, stub(2), { 'decimals()': uintWord(0), 'symbol()': abiString(' ABC\u0000\u0000'), 'name()': abiString('Ünïcode ✓ token ') });
    expect(await read(stub(2))).toEqual({ decimals: 0, symbol: 'ABC', name: 'Ünïcode ✓ token', problems: [] });
  });

  it('refuses decimals out of 0..77, an empty symbol and a name that is not UTF-8', async () => {
    await setStub(chain, stub(3), { 'decimals()': uintWord(255), 'symbol()': abiString(''), 'name()': abiBytes('0xfffe41') });
    expect(await read(stub(3))).toEqual({
      decimals: null,
      symbol: null,
      name: null,
      problems: ['decimals() returned 255, not 0 to 77', 'symbol() returned an empty text', 'name() returned bytes that are not UTF-8 text'],
    });
  });

  it('refuses a decimals answer shorter than a word, control characters, a name too long and bytes neither string nor bytes32', async () => {
    await setStub(chain, stub(4), { 'decimals()': '0x12', 'symbol()': abiString('AB\nC'), 'name()': abiString('x'.repeat(201)) });
    expect((await read(stub(4))).problems).toEqual([
      'decimals() returned 1 bytes, not a number',
      'symbol() returned text with control characters',
      'name() returned 201 characters, more than 200',
    ]);
    await setStub(chain, stub(5), { 'decimals()': uintWord(77), 'symbol()': '0x0102', 'name()': `0x${'ff'.repeat(64)}` });
    expect(await read(stub(5))).toEqual({
      decimals: 77,
      symbol: null,
      name: null,
      problems: ['symbol() returned 2 bytes, neither a string nor a bytes32', 'name() returned 64 bytes, neither a string nor a bytes32'],
    });
  });

  it('keeps the facts a contract answers when another function reverts or returns nothing', async () => {
    await setStub(chain, stub(6), { 'decimals()': uintWord(8), 'symbol()': abiString('WBTC'), 'name()': 'revert' });
    expect(await read(stub(6))).toEqual({ decimals: 8, symbol: 'WBTC', name: null, problems: ['name() reverted'] });
    await setStub(chain, stub(7), { 'decimals()': uintWord(8), 'symbol()': '0x', 'name()': abiString('Wrapped') });
    expect(await read(stub(7))).toEqual({ decimals: 8, symbol: null, name: 'Wrapped', problems: ['symbol() returned nothing'] });
  });

  it('an address without code returns nothing', async () => {
    expect(await read('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913')).toEqual({
      decimals: null,
      symbol: null,
      name: null,
      problems: ['decimals() returned nothing', 'symbol() returned nothing', 'name() returned nothing'],
    });
  });

  it('reads at the given block: before the token was deployed, it answers nothing', async () => {
    const before = await chain.public.getBlockNumber();
    const token = await deploy(chain, 'TestToken', ['Late', 'LATE', 18]);
    expect((await readTokenFacts(rpc, token, before)).decimals).toBeNull();
    expect((await read(token)).decimals).toBe(18);
  });
});
