import bearerAuth from '@fastify/bearer-auth';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { unauthorized } from '../errors.js';
import { TOKEN_FORMAT } from '../api-token.js';

/** Who presented the bearer token: the token's user. */
export interface Caller {
  userId: string;
  address: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the bearer-auth hook of the staging scope; null everywhere else. */
    caller: Caller | null;
  }
}

/** The OpenAPI security scheme the staging operations name as `bearerAuth`. */
export const BEARER_SECURITY_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  description:
    'A token issued with `npm run token -- create` (the embedded demo prints one at start), sent as ' +
    '`Authorization: Bearer <token>`. A token in the query string is never read: without the header the ' +
    'answer is a 401, with it the unknown parameter is a 400.',
} as const;

const MISSING_HEADER = 'FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER';
const INVALID_HEADER = 'FST_BEARER_AUTH_INVALID_AUTHORIZATION_HEADER';
/** RFC 6750's b64token: what `Bearer <token>` may carry at all. Anything else is a malformed header. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Why a request that reached the token check was refused. */
type TokenVerdict = 'malformed' | 'not a token of this service' | 'unknown or revoked';

/**
 * Guards every route of the scope it is registered in (fastify-plugin: the hook lands in that
 * scope, not in a child): the request must carry `Authorization: Bearer <token>` with an active
 * token. The token is looked up by its SHA-256 (one indexed query, constant-time comparison of
 * the hash); a header that cannot hold a token costs no query at all. Only the header is read:
 * a token in the query string is never looked at.
 *
 * @fastify/bearer-auth runs without its own hook so that failures go through the app's error
 * handler: the `{ error }` envelope with `WWW-Authenticate: Bearer`, and a 503 rather than a 500
 * when the database is down during the lookup. Each refusal is logged here at warn, with its
 * reason and never the token.
 */
export const bearerAuthScope = fp(
  async (app: FastifyInstance) => {
    const tokens = app.repositories.apiTokens;
    // What the token check found, for the requests whose header held `Bearer <something>`.
    const verdicts = new WeakMap<FastifyRequest, TokenVerdict>();

    app.decorateRequest('caller', null);
    await app.register(bearerAuth, {
      keys: [],
      addHook: false,
      // RFC 7235: the scheme name is case-insensitive ("bearer" is accepted too).
      specCompliance: 'rfc6749',
      // The plugin logs only when app.log has level methods of its own, which Fastify's child of a
      // loggerInstance has not (so it stays silent here); should that change, not above debug.
      verifyErrorLogLevel: 'debug',
      auth: async (token: string, request: FastifyRequest) => {
        if (!B64TOKEN.test(token)) {
          verdicts.set(request, 'malformed');
          return false;
        }
        // A token of another shape was never issued here: refused without a query.
        if (!TOKEN_FORMAT.test(token)) {
          verdicts.set(request, 'not a token of this service');
          return false;
        }
        verdicts.set(request, 'unknown or revoked');
        const owner = await tokens.findTokenOwner(token);
        if (!owner) return false;
        request.caller = { userId: owner.userId, address: owner.address };
        return true;
      },
    });

    const verify = app.verifyBearerAuth;
    if (!verify) throw new Error('@fastify/bearer-auth did not decorate verifyBearerAuth');

    app.addHook('onRequest', (request, reply, done) => {
      // A CORS preflight carries no credentials by design; whoever answers it must not need a token.
      if (request.method === 'OPTIONS') return done();
      verify(request, reply, (error) => {
        if (!error) return done();
        const refusal = describeRefusal((error as FastifyError).code, verdicts.get(request));
        if (!refusal) return done(error);
        request.log.warn({ reason: refusal.reason }, 'bearer authentication refused');
        done(unauthorized(refusal.message));
      });
    });
  },
  { name: 'bearer-auth-scope' },
);

/**
 * The answer's message and the log's reason. "Malformed" is for a header that is not `Bearer <token>`
 * at all (another scheme, no token, two words); a token that is well formed but not accepted, of
 * whatever shape, is an invalid bearer token (the log keeps which).
 */
function describeRefusal(code: string | undefined, verdict: TokenVerdict | undefined) {
  if (code === MISSING_HEADER) {
    return { reason: 'missing', message: 'missing bearer token: send the header Authorization: Bearer <token>' };
  }
  if (code !== INVALID_HEADER) return undefined;
  if (verdict === undefined || verdict === 'malformed') {
    return { reason: 'malformed', message: 'malformed Authorization header: expected Bearer followed by a token' };
  }
  return { reason: verdict, message: 'invalid bearer token' };
}

/** The caller of a route inside the staging scope; a route outside it asking is a programming error. */
export function callerOf(request: FastifyRequest): Caller {
  // The route pattern, never request.url: a URL may carry a pasted token, and this message is logged.
  if (!request.caller) throw new Error(`${request.routeOptions.url ?? 'this route'} is not inside the bearer-auth scope`);
  return request.caller;
}
