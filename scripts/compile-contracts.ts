import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Compiles the Solidity files of chain/contracts/ with solc-js (the npm `solc` package, pinned in
 * package.json) and writes chain/contracts/artifacts.json (ABI and creation bytecode of each
 * contract), which tests, the benchmark and the chain demo deploy. `npm run chain:compile`; `--check` fails when the
 * committed artifacts differ from what the source compiles to.
 *
 * Also Chainlink's own MockV3Aggregator, from the source the `@chainlink/contracts` package ships
 * (it ships no bytecode): the price feed the Chainlink price source is tested against.
 */

const require = createRequire(import.meta.url);
const solc = require('solc') as { compile(input: string, options: { import: (path: string) => unknown }): string; version(): string };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHAINLINK = '@chainlink/contracts/';
const sourcePaths = [
  'chain/contracts/BoostTestContracts.sol',
  'chain/contracts/TestTokens.sol',
  'chain/contracts/TestForwarder.sol',
  'chain/contracts/UnlistedIncentive.sol',
  `${CHAINLINK}src/v0.8/tests/MockV3Aggregator.sol`,
];
const artifactsPath = join(root, 'chain/contracts/artifacts.json');

const input = {
  language: 'Solidity',
  sources: Object.fromEntries(sourcePaths.map((path) => [path, { content: readFileSync(path.startsWith(CHAINLINK) ? fromPackage(path) : join(root, path), 'utf8') }])),
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};

/** A file of an npm package, by its import path (`@chainlink/contracts/src/...`). */
function fromPackage(path: string): string {
  return join(dirname(require.resolve(`${CHAINLINK}package.json`)), path.slice(CHAINLINK.length));
}

function findImport(path: string) {
  if (path.startsWith(CHAINLINK)) return { contents: readFileSync(fromPackage(path), 'utf8') };
  if (!path.startsWith('solady/')) return { error: `unknown import ${path}` };
  return { contents: readFileSync(join(dirname(require.resolve('solady/package.json')), 'src', path.slice('solady/'.length)), 'utf8') };
}

const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
};
const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
if (errors.length > 0) {
  for (const error of errors) console.error(error.formattedMessage);
  process.exit(1);
}
const contracts = Object.fromEntries(
  sourcePaths
    .flatMap((path) => Object.entries(output.contracts[path]!))
    .filter(([, contract]) => contract.evm.bytecode.object !== '')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, contract]) => [name, { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }]),
);
const text = `${JSON.stringify({ compiler: `solc-js ${solc.version()}`, sources: sourcePaths, contracts }, null, 1)}\n`;
if (process.argv.includes('--check')) {
  if (readFileSync(artifactsPath, 'utf8') !== text) {
    console.error(`${artifactsPath} is not what ${sourcePaths.join(' and ')} compile to: run npm run chain:compile`);
    process.exit(1);
  }
  console.log('chain/contracts/artifacts.json is current');
} else {
  writeFileSync(artifactsPath, text);
  console.log(`wrote ${Object.keys(contracts).length} contracts to chain/contracts/artifacts.json`);
}
