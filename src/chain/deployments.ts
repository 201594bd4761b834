/**
 * BoostCore deployments the indexer follows by default (chain-facts.md §6, from the protocol's
 * packages/evm/deploys/<chain>.json): an operator only gives RPC URLs. Legacy non-proxy cores are
 * not followed unless listed in INDEXER_CORES.
 */
export interface CoreDeployment {
  chainId: number;
  address: `0x${string}`;
  startBlock: bigint;
}

const PROXY = '0xea11a7937809b8585e63b12cc86bf91a72a5b08a';
const PROXY_CELO = '0xbe2b4c92f598bca158a9301b933f1ddbaeb8b014';
const PROXY_LATE = '0x4faf2485c49f3c3984e68eb9fc80adaa32bd3dd2';

export const DEFAULT_CORES: readonly CoreDeployment[] = [
  { chainId: 8453, address: PROXY, startBlock: 35_631_431n },
  { chainId: 10, address: PROXY, startBlock: 141_227_874n },
  { chainId: 480, address: PROXY, startBlock: 19_359_912n },
  { chainId: 84532, address: PROXY, startBlock: 30_927_398n },
  { chainId: 11155111, address: PROXY, startBlock: 9_183_345n },
  { chainId: 42220, address: PROXY_CELO, startBlock: 48_570_402n },
  { chainId: 1, address: PROXY_LATE, startBlock: 24_888_863n },
  { chainId: 42161, address: PROXY_LATE, startBlock: 452_916_722n },
  { chainId: 999, address: PROXY_LATE, startBlock: 32_580_649n },
];
