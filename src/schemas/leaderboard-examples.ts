import type { Leaderboard } from './leaderboard.js';

const TOP = [
  { rank: 1, address: '0x7d3e1e5d3a9b8c4f2e6a0b1c9d8e7f6a5b4c3d2e', claims: 14, usd: 182.5 },
  { rank: 2, address: '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984', claims: 9, usd: 96 },
  { rank: 2, address: '0x9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c', claims: 12, usd: 96 },
];

/** A campaign's 7-day leaderboard by USD, with an address's own entry, as GET /campaigns/{id}/leaderboard answers. */
export const CAMPAIGN_LEADERBOARD_EXAMPLE: Leaderboard = {
  campaignId: '8453:0x378632819f39c74c4f56b1429e760739c5fb51b7:1',
  window: '7d',
  by: 'usd',
  from: '2026-11-21T12:00:00.000Z',
  to: '2026-11-28T12:00:00.000Z',
  entries: TOP,
  addressEntry: { rank: 41, address: '0x2c4b2a0e6d9f8e7d6c5b4a3928171605f4e3d2c1', claims: 1, usd: 5 },
  nextCursor: 'djEuNWhWd2RfRnBCb0guOTYwMDAwMDAuMHg5YjhjN2Q2ZTVmNGEzYjJjMWQwZTlmOGE3YjZjNWQ0ZTNmMmExYjBj',
};

/** The 24-hour leaderboard of all campaigns by number of claims, as GET /leaderboard answers. */
export const LEADERBOARD_EXAMPLE: Leaderboard = {
  window: '24h',
  by: 'claims',
  from: '2026-11-27T12:00:00.000Z',
  to: '2026-11-28T12:00:00.000Z',
  entries: [TOP[0]!, TOP[2]!, { ...TOP[1]!, rank: 3 }],
  totalCount: 5210,
  nextCursor: 'djEuWHJfNGpNaHd1cWsuOS4weDFmOTg0MGE4NWQ1YWY1YmYxZDE3NjJmOTI1YmRhZGRjNDIwMWY5ODQ',
};
