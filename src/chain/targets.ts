import { type CoreDeployment, DEFAULT_CORES } from './deployments.js';

/**
 * What the indexer follows, from the settings: CHAIN_RPC_URLS (`8453=https://…,10=https://…`) names
 * the chains, INDEXER_CORES (`8453:0xabc…:35631431,…`) the BoostCores with their start blocks,
 * by default the protocol's deployments (src/chain/deployments.ts) on the chains that have a URL.
 */

export interface ChainTarget {
  chainId: number;
  rpcUrl: string;
  cores: { address: string; startBlock: bigint }[];
}

interface Parsed {
  targets: ChainTarget[];
  problems: string[];
}

export function parseTargets(rpcUrls: string | undefined, cores: string | undefined, defaults: readonly CoreDeployment[] = DEFAULT_CORES): Parsed {
  const problems: string[] = [];
  const urls = new Map<number, string>();
  for (const entry of split(rpcUrls)) {
    const match = /^([0-9]{1,10})=(https?:\/\/\S+)$/.exec(entry);
    if (!match) {
      problems.push(`CHAIN_RPC_URLS: ${JSON.stringify(entry)} is not chainId=http(s)://URL`);
      continue;
    }
    if (urls.has(Number(match[1]))) problems.push(`CHAIN_RPC_URLS: chain ${match[1]} is given twice`);
    urls.set(Number(match[1]), match[2]!);
  }
  let listed: CoreDeployment[] | null = null;
  if (cores !== undefined && cores.trim() !== '') {
    listed = [];
    for (const entry of split(cores)) {
      const match = /^([0-9]{1,10}):(0x[0-9a-fA-F]{40}):([0-9]{1,15})$/.exec(entry);
      if (!match) {
        problems.push(`INDEXER_CORES: ${JSON.stringify(entry)} is not chainId:0xCoreAddress:startBlock`);
        continue;
      }
      const chainId = Number(match[1]);
      if (!urls.has(chainId)) problems.push(`INDEXER_CORES: chain ${chainId} has no URL in CHAIN_RPC_URLS`);
      listed.push({ chainId, address: match[2]!.toLowerCase() as `0x${string}`, startBlock: BigInt(match[3]!) });
    }
  }
  const chosen = listed ?? defaults.filter((core) => urls.has(core.chainId));
  if (listed === null) {
    for (const chainId of urls.keys()) {
      if (!defaults.some((core) => core.chainId === chainId)) {
        problems.push(`CHAIN_RPC_URLS: chain ${chainId} has no known BoostCore deployment; list its cores in INDEXER_CORES`);
      }
    }
  }
  const targets = [...urls].map(([chainId, rpcUrl]) => ({
    chainId,
    rpcUrl,
    cores: chosen.filter((core) => core.chainId === chainId).map((core) => ({ address: core.address.toLowerCase(), startBlock: core.startBlock })),
  }));
  return { targets: targets.filter((target) => target.cores.length > 0), problems };
}

const split = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
