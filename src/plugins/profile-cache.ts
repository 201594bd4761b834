import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ProfileCache } from '../services/profile-cache.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** GET /reward-kit's answers, served again while what they were built from is unchanged. */
    profileCache: ProfileCache;
  }
}

/**
 * The reward-kit profile cache as a component of the app: given to buildApp (tests hand in their
 * own), emptied when the app closes. It owns no timers: a kept answer is checked when it is asked for.
 */
export const profileCacheLifecycle = fp(
  (app: FastifyInstance, { profileCache }: { profileCache: ProfileCache }, done: (error?: Error) => void) => {
    app.decorate('profileCache', profileCache);
    app.addHook('onClose', (_instance, closed) => {
      profileCache.clear();
      closed();
    });
    done();
  },
  { name: 'profile-cache' },
);
