import type { ACTION_TEMPLATE_CATEGORIES } from '../db/schema.js';

/**
 * Fixed reference material the generator draws from: chains, well-known tokens (real addresses),
 * projects, action types per category and the signatures actions watch. Pure data.
 */

export const CHAINS = [
  { id: 8453, name: 'Base', weight: 45 },
  { id: 10, name: 'OP Mainnet', weight: 15 },
  { id: 42161, name: 'Arbitrum One', weight: 15 },
  { id: 1, name: 'Ethereum', weight: 15 },
  { id: 7777777, name: 'Zora', weight: 10 },
] as const;

export interface TokenSpec {
  chainId: number;
  symbol: string;
  name: string;
  decimals: number;
  /** USD price; null for tokens without a market. */
  priceUsd: number | null;
  isWhitelisted: boolean;
  /** Marked blocked by the operator (GET /blocklist); never whitelisted. */
  isBlocked?: boolean;
  /** Real address where the token is well known; otherwise the generator makes one up. */
  address?: string;
}

const stablecoin = (chainId: number, address: string): TokenSpec => ({
  chainId,
  symbol: 'USDC',
  name: 'USD Coin',
  decimals: 6,
  priceUsd: 1,
  isWhitelisted: true,
  address,
});
const wrappedEther = (chainId: number, address: string): TokenSpec => ({
  chainId,
  symbol: 'WETH',
  name: 'Wrapped Ether',
  decimals: 18,
  priceUsd: ETH_PRICE_USD,
  isWhitelisted: true,
  address,
});

export const ETH_PRICE_USD = 3412.55;

export const TOKENS: TokenSpec[] = [
  stablecoin(1, '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'),
  wrappedEther(1, '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'),
  { chainId: 1, symbol: 'DAI', name: 'Dai Stablecoin', decimals: 18, priceUsd: 1, isWhitelisted: true, address: '0x6b175474e89094c44da98b954eedeac495271d0f' },
  { chainId: 1, symbol: 'WBTC', name: 'Wrapped BTC', decimals: 8, priceUsd: 97123.4, isWhitelisted: true, address: '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599' },
  stablecoin(10, '0x0b2c639c533813f4aa9d7837caf62653d097ff85'),
  wrappedEther(10, '0x4200000000000000000000000000000000000006'),
  { chainId: 10, symbol: 'OP', name: 'Optimism', decimals: 18, priceUsd: 1.87, isWhitelisted: true, address: '0x4200000000000000000000000000000000000042' },
  stablecoin(8453, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'),
  wrappedEther(8453, '0x4200000000000000000000000000000000000006'),
  { chainId: 8453, symbol: 'DEGEN', name: 'Degen', decimals: 18, priceUsd: 0.00812, isWhitelisted: true, address: '0x4ed4e862860bed51a9570b96d89af5e1b0efefed' },
  { chainId: 8453, symbol: 'AERO', name: 'Aerodrome', decimals: 18, priceUsd: 1.21, isWhitelisted: true, address: '0x940181a94a35a4569e4529a3cdfb74e38fd98631' },
  { chainId: 8453, symbol: 'MEGA', name: 'Mega Supply', decimals: 18, priceUsd: null, isWhitelisted: true },
  stablecoin(42161, '0xaf88d065e77c8cc2239327c5edb3a432268e5831'),
  wrappedEther(42161, '0x82af49447d8a07e3bd95bd0d56f35241523fbab1'),
  { chainId: 42161, symbol: 'ARB', name: 'Arbitrum', decimals: 18, priceUsd: 0.79, isWhitelisted: true, address: '0x912ce59144191c1204e64559fe8253a0e49e6548' },
  wrappedEther(7777777, '0x4200000000000000000000000000000000000006'),
  { chainId: 7777777, symbol: 'ENJOY', name: 'Enjoy', decimals: 18, priceUsd: 0.00041, isWhitelisted: true },
  // Tokens that are not on the whitelist: hidden by the default `tokenWhitelist=true`.
  // ...two of them blocked by the operator as scams, one merely unlisted.
  { chainId: 8453, symbol: 'FREEAIRDROP', name: 'Free Airdrop', decimals: 18, priceUsd: null, isWhitelisted: false, isBlocked: true },
  { chainId: 1, symbol: 'PEPE2', name: 'Pepe 2.0', decimals: 18, priceUsd: 0.0000012, isWhitelisted: false, isBlocked: true },
  { chainId: 42161, symbol: 'MOON', name: 'Moon Token', decimals: 9, priceUsd: 0.0031, isWhitelisted: false },
];

/** The unpriced token whose incentives carry uint256-sized amounts (78 digits). */
export const HUGE_AMOUNT_TOKEN_SYMBOL = 'MEGA';

export const CATEGORY_ACTIONS: Record<(typeof ACTION_TEMPLATE_CATEGORIES)[number], readonly string[]> = {
  defi: ['swap', 'deposit', 'stake', 'lend', 'provide-liquidity'],
  nft: ['mint', 'buy', 'list'],
  gaming: ['play', 'craft'],
  social: ['follow', 'cast', 'post'],
  bridge: ['bridge'],
  governance: ['vote', 'delegate'],
  payments: ['send', 'pay'],
  other: ['register', 'check-in'],
};

export const PROJECTS = [
  { name: 'Zora', category: 'nft' },
  { name: 'Uniswap', category: 'defi' },
  { name: 'Aerodrome', category: 'defi' },
  { name: 'Velodrome', category: 'defi' },
  { name: 'Aave', category: 'defi' },
  { name: 'Across', category: 'bridge' },
  { name: 'Stargate', category: 'bridge' },
  { name: 'Tally', category: 'governance' },
  { name: 'Snapshot', category: 'governance' },
  { name: 'Warpcast', category: 'social' },
  { name: 'Lens', category: 'social' },
  { name: 'Parallel', category: 'gaming' },
  { name: 'Pixels', category: 'gaming' },
  { name: 'Highlight', category: 'nft' },
  { name: 'Sound', category: 'nft' },
  { name: 'Coinbase Wallet', category: 'payments' },
  { name: 'Basenames', category: 'other' },
  { name: 'Manifold', category: 'nft' },
] as const;

export const VERIFICATION_LEVELS = ['verified', 'verified', 'verified', 'community', 'unverified'] as const;

export const CONTRACT_KINDS = ['Router', 'Pool', 'Minter', 'Vault', 'Governor', 'SpokePool', 'Registry', 'Drop'] as const;

export const COLLECTION_NAMES = [
  'Sunset Drop',
  'Onchain Summer',
  'Based Punks',
  'Optimistic Explorers',
  'Arbitrum Odyssey',
  'Zorb Editions',
  'Genesis Pass',
  'Builder Badge',
] as const;

export const DISTRIBUTION_CHANNELS = ['farcaster', 'x', 'telegram', 'discord', 'web', 'lens'] as const;

export const EVENT_SIGNATURES = [
  'Transfer(address,address,uint256)',
  'Swap(address,address,int256,int256,uint160,uint128,int24)',
  'Mint(address,uint256)',
  'Deposit(address,address,uint256,uint256)',
  'VoteCast(address,uint256,uint8,uint256,string)',
  'FundsDeposited(address,address,uint256,uint256,uint256)',
  'Purchased(address,address,uint256,uint256,uint256)',
] as const;

export const FUNCTION_SIGNATURES = [
  'mint(address,uint256)',
  'swapExactTokensForTokens(uint256,uint256,address[],address,uint256)',
  'deposit(uint256,address)',
  'castVote(uint256,uint8)',
  'bridge(address,uint256,uint256)',
  'register(string,address,uint256)',
  'transfer(address,uint256)',
] as const;
