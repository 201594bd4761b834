import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { EntryCache } from '../services/entry-cache.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The trending and reward-kit operations' built entries, reused while their campaigns are unchanged. */
    entryCache: EntryCache;
  }
}

/**
 * The built-entry cache as a component of the app: given to buildApp (tests hand in their own),
 * emptied when the app closes. It owns no timers: an entry's age is checked when it is read.
 */
export const entryCacheLifecycle = fp(
  (app: FastifyInstance, { entryCache }: { entryCache: EntryCache }, done: (error?: Error) => void) => {
    app.decorate('entryCache', entryCache);
    app.addHook('onClose', (_instance, closed) => {
      entryCache.clear();
      closed();
    });
    done();
  },
  { name: 'entry-cache' },
);
