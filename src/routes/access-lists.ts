import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../auth/bearer-auth.js';
import { forbidden } from '../errors.js';
import { AccessListPage, AccessListQuery } from '../schemas/access-lists.js';
import { ErrorResponse, pageRequest } from '../schemas/common.js';
import { ACCESS_LIST_PAGE_EXAMPLE } from '../schemas/staging-examples.js';
import { ref } from '../schemas/typebox.js';

/** GET /campaigns/accesslists: the caller's access lists, newest first or by member count. */
export const accessListRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/campaigns/accesslists',
    {
      schema: {
        operationId: 'listAccessLists',
        tags: ['staging'],
        summary: "The caller's access lists",
        description:
          "Lists the access lists the token's user owns, newest first, or by member count with `sortBy=totalMembers`. " +
          "`search` filters on the name (case-insensitive substring). `userId` may only name the token's own user; " +
          'any other user id is a 403. Pages count from 1.',
        security: [{ bearerAuth: [] }],
        querystring: AccessListQuery,
        response: {
          200: { ...ref(AccessListPage), examples: [ACCESS_LIST_PAGE_EXAMPLE] },
          400: ref(ErrorResponse),
          401: ref(ErrorResponse),
          403: ref(ErrorResponse),
          503: ref(ErrorResponse),
          504: ref(ErrorResponse),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { userId, search, sortBy, order = 'DESC' } = request.query;
      if (userId !== undefined && userId.toLowerCase() !== caller.userId) {
        throw forbidden("userId must be your own user id: a token may only read its own user's access lists");
      }
      return app.repositories.accessLists.listAccessLists({
        ownerUserId: caller.userId,
        search,
        sortBy,
        order,
        ...pageRequest(request.query),
      });
    },
  );
};
