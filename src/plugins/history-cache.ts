import type { HistoryCache } from '../services/history-cache.js';
import { clearedOnClose } from './cleared-on-close.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** GET /campaigns/{id}/history's answers, served again while what they were built from is unchanged. */
    historyCache: HistoryCache;
  }
}

/** The campaign history cache, emptied when the app closes: a kept answer is checked when it is asked for. */
export const historyCacheLifecycle = clearedOnClose<'historyCache', HistoryCache>('historyCache', 'history-cache');
