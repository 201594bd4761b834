import type { Database } from '../db/client.js';
import { createAccessListsRepository } from './access-lists.repository.js';
import { createApiTokensRepository } from './api-tokens.repository.js';
import { createCampaignsRepository } from './campaigns.repository.js';
import { createClaimWindowsRepository } from './claim-windows.repository.js';
import { createContractsRepository } from './contracts.repository.js';
import { createProfileRepository } from './profile.repository.js';
import { createTrendingRepository } from './trending.repository.js';

/** Every repository, built once per app over the same database; routes reach them as `app.repositories`. */
export function createRepositories(db: Database) {
  return {
    accessLists: createAccessListsRepository(db),
    apiTokens: createApiTokensRepository(db),
    campaigns: createCampaignsRepository(db),
    claimWindows: createClaimWindowsRepository(db),
    contracts: createContractsRepository(db),
    profiles: createProfileRepository(db),
    trending: createTrendingRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
