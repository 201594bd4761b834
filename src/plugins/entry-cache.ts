import type { EntryCache } from '../services/entry-cache.js';
import { clearedOnClose } from './cleared-on-close.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The trending and reward-kit operations' built entries, reused while their campaigns are unchanged. */
    entryCache: EntryCache;
  }
}

/** The built-entry cache, emptied when the app closes: an entry's age is checked when it is read. */
export const entryCacheLifecycle = clearedOnClose<'entryCache', EntryCache>('entryCache', 'entry-cache');
