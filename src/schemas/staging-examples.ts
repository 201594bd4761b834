import type { Static } from '@sinclair/typebox';
import type { AccessListPage } from './access-lists.js';
import type { UserProfile } from './profile.js';

/** Example answers of the staging operations for the API document; a contract test validates them. */

export const ACCESS_LIST_PAGE_EXAMPLE: Static<typeof AccessListPage> = {
  accesslists: [
    {
      id: '2f1c6a0e-4d5b-4a8e-9c3f-7b6a5d4c3b2a',
      name: 'Early supporters',
      memberCount: 42,
      createdAt: '2026-05-02T09:30:00.000Z',
      icon: 'https://assets.example.com/icons/star.svg',
    },
  ],
  totalAccesslists: 1,
};

export const USER_PROFILE_EXAMPLE: Static<typeof UserProfile> = {
  ethEarned: '951325538673426003',
  score: 2500,
  streak: {
    value: 5,
    status: 'active',
    lastExpirationTime: '2026-05-20T00:00:00.000Z',
    nextExpirationTime: '2026-06-03T00:00:00.000Z',
    lastCompletionTime: '2026-06-01T11:42:00.000Z',
  },
  ranking: 28,
};
