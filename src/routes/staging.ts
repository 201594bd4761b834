import type { FastifyPluginAsync } from 'fastify';
import { bearerAuthScope } from '../auth/bearer-auth.js';
import { accessListRoutes } from './access-lists.js';
import { profileRoutes } from './profile.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route is a staging operation: served from STAGING_URL (its own `servers` in the API
     * document) and readable by browsers only from the origins CORS_ORIGINS lists.
     */
    staging?: boolean;
  }
}

/**
 * The staging operations, in a scope of their own: the bearer-auth hook registered here guards
 * exactly these routes (and their HEAD twins), and nothing outside. Their answers are per user,
 * so no cache may keep them, errors included.
 */
export const stagingRoutes: FastifyPluginAsync = async (app) => {
  // Marks every route of this scope, so that no staging route can forget to say so.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, staging: true };
  });
  await app.register(bearerAuthScope);
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'private, no-store');
    return payload;
  });

  await app.register(accessListRoutes);
  await app.register(profileRoutes);
};
