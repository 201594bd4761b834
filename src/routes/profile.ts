import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../auth/bearer-auth.js';
import { ErrorResponse } from '../schemas/common.js';
import { UserProfile } from '../schemas/profile.js';
import { userProfile } from '../services/user-profile.js';
import { USER_PROFILE_EXAMPLE } from '../schemas/staging-examples.js';
import { ref } from '../schemas/typebox.js';

/** GET /users/profile: the caller's earnings (wei), points, streak of UTC days with a claim, and rank by points. */
export const profileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/users/profile',
    {
      schema: {
        operationId: 'getUserProfile',
        tags: ['staging'],
        summary: "The caller's profile",
        description:
          'The profile of the user the bearer token belongs to: ETH earned by claims (wei), score, claim streak ' +
          'over consecutive UTC days, and rank by score (equal scores share a rank). A user without claims gets ' +
          'a profile with `ethEarned` "0" and an inactive streak of 0. Takes no query parameters.',
        security: [{ bearerAuth: [] }],
        response: {
          200: { ...ref(UserProfile), examples: [USER_PROFILE_EXAMPLE] },
          400: ref(ErrorResponse),
          401: ref(ErrorResponse),
          503: ref(ErrorResponse),
          504: ref(ErrorResponse),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const profile = await userProfile(app.repositories.profiles, caller.userId, app.clock());
      // The token's user cannot vanish (api_tokens references users); if it did, that is a server fault.
      if (!profile) throw new Error(`user ${caller.userId} of a valid token has no row`);
      return profile;
    },
  );
};
