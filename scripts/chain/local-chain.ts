import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  type Hex,
  http,
  type PublicClient,
  toHex,
  type Transport,
  type WalletClient,
} from 'viem';
import { allowListInitParameters, createBoostPayloadParameters } from '../../src/chain/abi.js';

/**
 * A local chain for tests, the demo and the benchmark: anvil from the npm registry
 * (@foundry-rs/anvil-linux-amd64, the platform package of @foundry-rs/anvil, which holds the binary), the test contracts of
 * chain/contracts/ (compiled artifacts committed; `npm run chain:compile` rebuilds them), and
 * helpers that create boosts on the Solidity stand-ins and claim from them the way the protocol's
 * users do (test/chain/ and the benchmark; the real protocol is protocol.ts and boosts.ts).
 */

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { LibZip } = require('solady') as { LibZip: { cdCompress(data: string): string } };

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}
export const artifacts = (
  JSON.parse(readFileSync(join(root, 'chain/contracts/artifacts.json'), 'utf8')) as { contracts: Record<string, Artifact> }
).contracts;

/** The binary inside the platform package, started directly so that killing it kills the node. */
export function anvilBinary(): string | null {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return join(dirname(require.resolve(`${platformPackage}/package.json`)), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  } catch {
    return null;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * HTTP to an anvil, with a margin on gas. anvil estimates a transaction in a block at the current
 * second; mined in the next second, one that stores `block.timestamp` (Chainlink's updateAnswer, a
 * constructor) changes a slot that the estimate left unchanged, costs more than estimated and
 * reverts out of gas. So estimates get a margin, as wallets add one: `eth_estimateGas`, the gas that
 * `eth_fillTransaction` fills in (viem fills a local account's transaction with it, estimating
 * nothing itself), and a transaction sent without gas (`eth_sendTransaction` from anvil's unlocked
 * account, which anvil would estimate itself), estimated here first.
 */
export function anvilTransport(url: string): Transport {
  const base = http(url, { retryCount: 0 });
  return (parameters) => {
    const transport = base(parameters);
    const raw = transport.request as (args: { method: string; params?: unknown }) => Promise<unknown>;
    const withMargin = (estimated: Hex) => toHex(BigInt(estimated) + BigInt(estimated) / 4n + GAS_MARGIN);
    const estimate = async (params: unknown) => withMargin((await raw({ method: 'eth_estimateGas', params })) as Hex);
    const request = async (args: { method: string; params?: unknown }) => {
      if (args.method === 'eth_estimateGas') return estimate(args.params);
      const [transaction] = (args.params ?? []) as Array<Record<string, unknown> | undefined>;
      if (!transaction || transaction.gas !== undefined) return raw(args);
      if (args.method === 'eth_sendTransaction') {
        return raw({ method: args.method, params: [{ ...transaction, gas: await estimate([transaction]) }] });
      }
      if (args.method === 'eth_fillTransaction') {
        const filled = (await raw(args)) as { raw: Hex; tx: { gas: Hex } };
        return { ...filled, tx: { ...filled.tx, gas: withMargin(filled.tx.gas) } };
      }
      return raw(args);
    };
    return { ...transport, request: request as typeof transport.request };
  };
}

/** Covers a storage slot that changes in the mined block but not in the estimate's (20,000 gas at most). */
const GAS_MARGIN = 25_000n;

export interface LocalChain {
  url: string;
  /** HTTP to this chain for another client (anvilTransport). */
  transport: Transport;
  port: number;
  chainId: number;
  process: ChildProcess;
  public: PublicClient;
  wallet: WalletClient;
  /** anvil's first funded account, which sends every transaction. */
  account: Address;
  /** Mines `count` empty blocks. */
  mine(count?: number): Promise<void>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  stop(): Promise<void>;
}

/** anvil's default dev accounts are unlocked: eth_sendTransaction from the first one needs no key here. */
const DEV_ACCOUNT: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** The port an anvil started with `--port 0` says it listens on; its output is drained from then on. */
function listeningPort(child: ChildProcess, stderr: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`anvil did not say its port within 15 s: ${stderr()}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      child.stdout!.resume();
      resolve(Number(match[1]));
    };
    const onExit = (code: number | null) => fail(new Error(`anvil exited with ${code}: ${stderr()}`));
    function fail(error: Error) {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      reject(error);
    }
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

export async function startAnvil(options: { chainId?: number; blockTime?: number; port?: number } = {}): Promise<LocalChain> {
  const binary = anvilBinary();
  if (!binary) throw new Error('anvil is not installed: npm ci installs @foundry-rs/anvil-linux-amd64 (an optional dependency: Linux x64 only)');
  const chainId = options.chainId ?? 31337;
  // Without a port asked for, anvil binds port 0 and says which port it got: a free port found first
  // and bound later could be taken meanwhile by another anvil (tests start several at once), whose
  // answers (the same chain id) would then pass for this one's. It says so only without --silent, so
  // its output is read for that line and then drained.
  const args = ['--port', String(options.port ?? 0), '--host', '127.0.0.1', '--chain-id', String(chainId)];
  if (options.port !== undefined) args.push('--silent');
  if (options.blockTime) args.push('--block-time', String(options.blockTime));
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // A process that ends without stop() (a benchmark or script that threw) takes its node with it:
  // an orphaned anvil goes on holding its memory and a core.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = options.port ?? (await listeningPort(child, () => stderr));
  const url = `http://127.0.0.1:${port}`;
  const transport = anvilTransport(url);
  const publicClient: PublicClient = createPublicClient({ transport, cacheTime: 0, pollingInterval: 20 });
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr}`);
    try {
      await publicClient.getChainId();
      break;
    } catch {
      if (Date.now() - started > 15_000) throw new Error(`anvil did not answer on ${url} within 15 s: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const wallet = createWalletClient({ account: DEV_ACCOUNT, transport });
  const rpc = (method: string, params: unknown[] = []) => publicClient.request<{ Method: string; Parameters: unknown[]; ReturnType: unknown }>({ method, params });
  return {
    url,
    transport,
    port,
    chainId,
    process: child,
    public: publicClient,
    wallet,
    account: DEV_ACCOUNT,
    mine: async (count = 1) => {
      await rpc('anvil_mine', [`0x${count.toString(16)}`]);
    },
    snapshot: async () => (await rpc('evm_snapshot')) as Hex,
    revert: async (id) => {
      await rpc('evm_revert', [id]);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

export async function deploy(chain: LocalChain, name: string, args: unknown[] = []): Promise<Address> {
  const artifact = artifacts[name];
  if (!artifact) throw new Error(`no artifact ${name}`);
  const hash = await chain.wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, account: chain.account, chain: null });
  const receipt = await chain.public.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 300_000 });
  if (!receipt.contractAddress) throw new Error(`deploying ${name} gave no address`);
  return receipt.contractAddress;
}

export async function send(chain: LocalChain, address: Address, name: string, functionName: string, args: unknown[]): Promise<{ hash: Hex; blockNumber: bigint }> {
  const hash = await chain.wallet.writeContract({
    address,
    abi: artifacts[name]!.abi,
    functionName,
    args,
    account: chain.account,
    chain: null,
  });
  const receipt = await chain.public.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 300_000 });
  if (receipt.status !== 'success') throw new Error(`${name}.${functionName} reverted`);
  return { hash, blockNumber: receipt.blockNumber };
}

export interface BoostSpec {
  owner: Address;
  budget: Address;
  validator: Address;
  action: Address;
  allowList: { address: Address; owner: Address; members: Address[] };
  incentives: Address[];
  protocolFee?: bigint;
  maxParticipants?: bigint;
}

/** createBoost(LibZip.cdCompress(abi.encode(payload))), as the SDK sends it. */
export function createBoostCalldataArgument(spec: BoostSpec): Hex {
  const target = (instance: Address, parameters: Hex = '0x') => ({ isBase: false, instance, parameters });
  const payload = encodeAbiParameters(createBoostPayloadParameters, [
    {
      budget: spec.budget,
      action: target(spec.action),
      validator: target(spec.validator),
      // As the SDK sends a list to clone: isBase, with the clone's init parameters (the stand-in core
      // uses the instance as it is; the real one clones it).
      allowList: {
        isBase: true,
        instance: spec.allowList.address,
        parameters: encodeAbiParameters(allowListInitParameters, [spec.allowList.owner, spec.allowList.members]),
      },
      incentives: spec.incentives.map((incentive) => target(incentive)),
      protocolFee: spec.protocolFee ?? 0n,
      maxParticipants: spec.maxParticipants ?? 0n,
      owner: spec.owner,
    },
  ]);
  return LibZip.cdCompress(payload) as Hex;
}

export async function createBoost(chain: LocalChain, core: Address, spec: BoostSpec) {
  return send(chain, core, 'TestBoostCore', 'createBoost', [createBoostCalldataArgument(spec)]);
}

/** BoostClaimed.data = abi.encode((bytes validatorData, bytes incentiveData)); a variable incentive reads a uint256 from incentiveData. */
export function claimData(signedAmount = 0n): Hex {
  return encodeAbiParameters(
    [{ type: 'tuple', components: [{ name: 'validatorData', type: 'bytes' }, { name: 'incentiveData', type: 'bytes' }] }],
    [{ validatorData: '0x', incentiveData: encodeAbiParameters([{ type: 'uint256' }], [signedAmount]) }],
  );
}

export async function claimFor(chain: LocalChain, core: Address, boostId: bigint, incentiveId: bigint, claimant: Address, signedAmount = 0n) {
  return send(chain, core, 'TestBoostCore', 'claimIncentiveFor', [boostId, incentiveId, '0x0000000000000000000000000000000000000000', claimData(signedAmount), claimant]);
}

export async function claimMany(chain: LocalChain, core: Address, boostId: bigint, incentiveId: bigint, claimants: Address[], signedAmount = 0n) {
  return send(chain, core, 'TestBoostCore', 'claimMany', [boostId, incentiveId, claimData(signedAmount), claimants]);
}

/** A deterministic address for the n-th test user. */
export const userAddress = (n: number): Address => `0x${(0x100000 + n).toString(16).padStart(40, 'a')}`;

export interface Deployed {
  core: Address;
  action: Address;
  allowList: Address;
  openAllowList: Address;
  erc20: Address;
  variableV2: Address;
  points: Address;
  allowListIncentive: Address;
  unknown: Address;
}

export const ASSET: Address = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
export const VENUE: Address = '0x1111111111111111111111111111111111111111';
export const TARGET: Address = '0x2222222222222222222222222222222222222222';

/** One of each component the tests and the demo use. */
export async function deployComponents(chain: LocalChain, members: Address[]): Promise<Deployed> {
  const core = await deploy(chain, 'TestBoostCore');
  const step = (n: number) => ({
    signature: `0x${'ab'.repeat(31)}${n.toString(16).padStart(2, '0')}` as Hex,
    signatureType: n % 2,
    actionType: 0,
    targetContract: TARGET,
    chainid: BigInt(chain.chainId),
    actionParameter: { filterType: 0, fieldType: 1, fieldIndex: n, filterData: '0x1234' as Hex },
  });
  const action = await deploy(chain, 'TestEventAction', [
    [step(0), step(1), step(1), step(1)],
    { signatureType: 0, signature: `0x${'cd'.repeat(32)}`, fieldIndex: 2, targetContract: TARGET, chainid: BigInt(chain.chainId) },
  ]);
  const allowList = await deploy(chain, 'TestAllowList', [chain.account, members, false]);
  const openAllowList = await deploy(chain, 'TestAllowList', ['0x0000000000000000000000000000000000000000', [], true]);
  const erc20 = await deploy(chain, 'TestERC20Incentive', [ASSET, 0, 10n ** 18n, 1_000_000n]);
  const variableV2 = await deploy(chain, 'TestERC20VariableCriteriaIncentiveV2', [
    ASSET,
    5n * 10n ** 17n,
    10n ** 30n,
    4n * 10n ** 18n,
    { criteriaType: 1, signature: `0x${'ef'.repeat(32)}`, fieldIndex: 3, targetContract: TARGET, valueType: 1 },
  ]);
  const points = await deploy(chain, 'TestPointsIncentive', [VENUE, '0xa9059cbb', 7n, 1_000_000n]);
  const allowListIncentive = await deploy(chain, 'TestAllowListIncentive', [allowList, 1000n]);
  const unknown = await deploy(chain, 'TestUnknownIncentive');
  return { core, action, allowList, openAllowList, erc20, variableV2, points, allowListIncentive, unknown };
}
