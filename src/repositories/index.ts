import type { Database } from '../db/client.js';
import { createAccessListsRepository } from './access-lists.repository.js';
import { createActivityRepository } from './activity.repository.js';
import { createActionTemplatesRepository } from './action-templates.repository.js';
import { createBudgetAccountsRepository } from './budget-accounts.repository.js';
import { createApiTokensRepository } from './api-tokens.repository.js';
import { createCampaignsRepository } from './campaigns.repository.js';
import { createContractsRepository } from './contracts.repository.js';
import { createEventsRepository } from './events.repository.js';
import { createHistoryRepository } from './history.repository.js';
import { createLeaderboardRepository } from './leaderboard.repository.js';
import { createIndexedBlocksRepository } from './indexed-blocks.repository.js';
import { createProfileRepository } from './profile.repository.js';
import { createRegistryRepository } from './registry.repository.js';
import { createReplicationRepository } from './replication.repository.js';
import { createRewardKitRepository } from './reward-kit.repository.js';
import { createSignaturesRepository } from './signatures.repository.js';
import { createTrendingRepository } from './trending.repository.js';

/**
 * Every repository, built once per app; routes reach them as `app.repositories`.
 *
 * `read` is where public data is read (DATABASE_READ_URL, a hot standby, when set; else the
 * primary): every repository reads there unless a reader must see a write the moment it commits.
 * Only bearer tokens need that: a revoked token must be refused at once, not after the standby
 * replays the revocation, and a new one must work at once. A new repository takes `read`; one that
 * writes (the history's applier) takes `primary` for that alone.
 */
export function createRepositories(primary: Database, read: Database = primary) {
  return {
    accessLists: createAccessListsRepository(read),
    actionTemplates: createActionTemplatesRepository(read),
    activity: createActivityRepository(read),
    budgetAccounts: createBudgetAccountsRepository(read),
    apiTokens: createApiTokensRepository(primary),
    campaigns: createCampaignsRepository(read),
    contracts: createContractsRepository(read),
    events: createEventsRepository(read),
    history: createHistoryRepository(read, primary),
    indexedBlocks: createIndexedBlocksRepository(read),
    leaderboards: createLeaderboardRepository(read),
    profiles: createProfileRepository(read),
    signatures: createSignaturesRepository(read),
    registry: createRegistryRepository(read),
    replication: createReplicationRepository(read),
    rewardKit: createRewardKitRepository(read),
    trending: createTrendingRepository(read),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
