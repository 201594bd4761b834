import type { ProfileCache } from '../services/profile-cache.js';
import { clearedOnClose } from './cleared-on-close.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** GET /reward-kit's answers, served again while what they were built from is unchanged. */
    profileCache: ProfileCache;
  }
}

/** The reward-kit profile cache, emptied when the app closes: a kept answer is checked when it is asked for. */
export const profileCacheLifecycle = clearedOnClose<'profileCache', ProfileCache>('profileCache', 'profile-cache');
