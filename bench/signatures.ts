import { parseArgs } from 'node:util';
import { StrategyType } from '@boostxyz/sdk';
import autocannon from 'autocannon';
import pg from 'pg';
import { pino } from 'pino';
import { type AbiEvent, type AbiFunction, type Hex, pad, parseAbiItem, parseEther, toEventSelector, toFunctionSelector } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { artifacts, startAnvil, userAddress } from '../scripts/chain/local-chain.js';
import { deployProtocol, sampleAction } from '../scripts/chain/protocol.js';
import { openDatabase } from '../src/db/client.js';
import { migratePostgres } from '../src/db/migrate.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { memorySource } from '../src/ingest/memory-source.js';
import { ingest } from '../src/ingest/write.js';
import { campaignReads, freePort, start, stop } from './processes.js';

/**
 * `npm run bench:signatures`: GET /signatures on a local node (anvil with the protocol's own
 * bytecode), the campaign indexed by the service's indexer into a database of its own.
 *
 *   new   each request a transaction not signed for yet: the chain read, the checks, the signature, the write
 *   seen  the same transactions again: answered from what was stored
 *   held  --rate requests a second of seen and new transactions for --duration seconds, while reads
 *         (the campaign list and the campaign) run at full speed; their throughput is compared with
 *         theirs alone just before, in the same run
 *
 * Targets: p99 of `seen` at most 50 ms and of `new` at most 150 ms; `held` with 0 errors and the
 * reads keeping at least 0.8 of their throughput.
 */

const { values } = parseArgs({
  options: {
    transactions: { type: 'string', default: '3000' },
    rate: { type: 'string', default: '100' },
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '10' },
  },
});
const transactions = Number(values.transactions);
const rate = Number(values.rate);
const duration = Number(values.duration);
const connections = Number(values.connections);
const log = (line: string) => process.stdout.write(`${line}\n`);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = 'campaigns_bench_signatures';

// The chain: the protocol, one campaign whose validator trusts the service's key, and a mint per transaction.
const chain = await startAnvil();
const protocol = await deployProtocol(chain);
const core = protocol.core.assertValidAddress();
const serviceKey = generatePrivateKey();
const boost = await protocol.core.createBoost({
  protocolFee: 0n,
  budget: protocol.budget,
  action: protocol.core.EventAction(sampleAction(protocol.token, chain.chainId)),
  validator: protocol.core.SignerValidator({ signers: [protocol.owner.address, privateKeyToAccount(serviceKey).address], validatorCaller: core }),
  maxParticipants: BigInt(transactions * 2),
  allowList: protocol.core.OpenAllowList(),
  incentives: [
    protocol.core.ERC20Incentive({
      asset: protocol.token,
      strategy: StrategyType.POOL,
      reward: parseEther('0.01'),
      limit: BigInt(transactions * 2),
      manager: protocol.budget.assertValidAddress(),
    }),
  ],
});
const campaignId = `${chain.chainId}:${core.toLowerCase()}:${boost.id}`;
log(`minting ${transactions} qualifying transactions on anvil`);
const hashes: Hex[] = [];
for (let i = 0; i < transactions; i++) {
  hashes.push(
    await chain.wallet.writeContract({
      address: protocol.token,
      abi: artifacts.TestToken!.abi,
      functionName: 'mint',
      args: [userAddress(i), parseEther('2')],
      account: chain.account,
      chain: null,
    }),
  );
}
await chain.public.waitForTransactionReceipt({ hash: hashes.at(-1)!, pollingInterval: 20, timeout: 300_000 });
await chain.mine(5);

// The database: migrated, the registry's ABI items, the campaign indexed.
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${DATABASE}`);
await admin.end();
const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${DATABASE}` }).toString();
await migratePostgres(url);
const database = await openDatabase({ DATABASE_URL: url, PGLITE_DATA_DIR: 'memory://', DB_POOL_MAX: 4, DB_STATEMENT_TIMEOUT_MS: 600_000, DB_CONNECT_TIMEOUT_MS: 5000, DB_QUERY_TIMEOUT_MS: 601_000 });
const transfer = parseAbiItem('event Transfer(address indexed, address indexed, uint256)') as AbiEvent;
const mint = parseAbiItem('function mint(address, uint256)') as AbiFunction;
await ingest(
  database,
  memorySource([
    { kind: 'knownSignature', id: toEventSelector(transfer), textSignature: 'Transfer(address,address,uint256)', abiItem: transfer, signatureType: 'event' },
    { kind: 'knownSignature', id: pad(toFunctionSelector(mint)), textSignature: 'mint(address,uint256)', abiItem: mint, signatureType: 'function' },
  ]),
  { derived: 'live' },
);
const settings = { confirmations: 0, blockRange: 2000, pollMs: 50, reorgDepth: 256, rpcTimeoutMs: 5000, baseBackoffMs: 20, maxBackoffMs: 200 };
await createIndexer([{ chainId: chain.chainId, rpcUrl: chain.url, cores: [{ address: core, startBlock: 0n }] }], database, settings, pino({ level: 'silent' })).run({ once: true });
await database.close();

const port = await freePort();
const server = await start(
  process.execPath,
  ['dist/server.js'],
  {
    PORT: String(port),
    DATABASE_URL: url,
    DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '0',
    RESPONSE_CACHE_TTL_MS: '0',
    SIGNER_PRIVATE_KEY: serviceKey,
    CHAIN_RPC_URLS: `${chain.chainId}=${chain.url}`,
    INDEXER_CORES: `${chain.chainId}:${core}:0`,
    SIGNATURE_CONFIRMATIONS: '2',
  },
  `http://127.0.0.1:${port}/health/ready`,
);
const base = `http://127.0.0.1:${port}`;
const signaturePath = (hash: Hex) => `/signatures?campaignId=${campaignId}&txHash=${hash}`;

/** Each of `paths` once, over `connections` keep-alive connections. */
async function each(paths: string[]) {
  let next = 0;
  const result = await autocannon({
    url: base,
    connections,
    amount: paths.length,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }],
  });
  return { p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts, non2xx: result.non2xx, rps: Math.round(result.requests.average) };
}

const reads = (seconds: number) => campaignReads(base, campaignId, connections, seconds);

try {
  const half = Math.floor(transactions / 2);
  const first = hashes.slice(0, half).map(signaturePath);
  const newRun = await each(first);
  const seenRun = await each(first);
  log(`new:  p50 ${newRun.p50} ms, p99 ${newRun.p99} ms, ${newRun.rps} req/s, errors ${newRun.errors}, non-2xx ${newRun.non2xx} (${first.length} requests)`);
  log(`seen: p50 ${seenRun.p50} ms, p99 ${seenRun.p99} ms, ${seenRun.rps} req/s, errors ${seenRun.errors}, non-2xx ${seenRun.non2xx}`);

  const alone = await reads(10);
  // Held: seen and new transactions in turn, at a fixed rate, beside the reads.
  const mixed = hashes.map((hash, i) => signaturePath(i % 2 === 0 ? hash : hashes[half + Math.floor(i / 2)] ?? hash));
  let turn = 0;
  const [held, beside] = await Promise.all([
    autocannon({
      url: base,
      connections: 4,
      duration,
      overallRate: rate,
      requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: mixed[turn++ % mixed.length]! }) }],
    }),
    reads(duration),
  ]);
  const heldErrors = held.errors + held.timeouts + held.non2xx;
  const heldRate = Math.round((held['2xx'] + held.non2xx) / held.duration);
  const ratio = beside.rps / alone.rps;
  log(`held: ${heldRate} req/s for ${duration} s, p99 ${held.latency.p99} ms, errors ${heldErrors}; reads ${alone.rps} req/s alone, ${beside.rps} beside (x${ratio.toFixed(2)})`);

  const targets = [
    [`seen p99 ${seenRun.p99} ms <= 50`, seenRun.p99 <= 50 && seenRun.errors + seenRun.non2xx === 0],
    [`new p99 ${newRun.p99} ms <= 150`, newRun.p99 <= 150 && newRun.errors + newRun.non2xx === 0],
    [`held ${heldRate} req/s with ${heldErrors} errors`, heldErrors === 0 && heldRate >= rate * 0.95],
    [`reads beside x${ratio.toFixed(2)} >= 0.8`, ratio >= 0.8],
  ] as const;
  for (const [text, pass] of targets) log(`${pass ? 'PASS' : 'FAIL'}  ${text}`);
  process.exitCode = targets.every(([, pass]) => pass) ? 0 : 1;
} finally {
  await stop(server);
  await chain.stop();
}
