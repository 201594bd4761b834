import type { FastifySchema, RouteOptions } from 'fastify';
import { ErrorResponse } from '../schemas/common.js';
import { ref } from '../schemas/typebox.js';
import { settingDefault } from '../setting-defaults.js';

/**
 * Responses that app-wide plugins add to every operation, documented here once rather than in
 * every route: the rate limit (429), an unexpected failure (500) and a shutdown or an unavailable
 * database (503). Routes that opt into the public cache also answer 304 and send cache headers.
 * Routes keep declaring the errors of their own (400, 401, 403, 404, 504).
 */

const retryAfter = { 'Retry-After': { type: 'integer', description: 'Seconds to wait before retrying' } };
const rateLimitHeaders = {
  'X-RateLimit-Limit': { type: 'integer', description: 'Requests allowed per window' },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in this window' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Seconds until the window resets' },
  'RateLimit-Policy': {
    type: 'string',
    description: 'The budget as the IETF draft (draft-ietf-httpapi-ratelimit-headers) words it: `"default";q=<requests>;w=<window seconds>`',
  },
  RateLimit: { type: 'string', description: 'What is left of it: `"default";r=<requests left>;t=<seconds until the window resets>`' },
};
const cacheHeaders = {
  ETag: {
    type: 'string',
    description: 'Entity tag of the body, strong; its weak form (`W/`) when the answer is compressed. Send it back in If-None-Match',
  },
  'Cache-Control': {
    type: 'string',
    description: `\`public, max-age=<seconds>\` (${settingDefault('CACHE_MAX_AGE_S')} by default, \`CACHE_MAX_AGE_S\`)`,
  },
  'Indexed-Blocks': {
    type: 'string',
    description:
      'Where the data of this answer stands, per chain the indexer follows: a list (RFC 8941) of `<chain_id>;block=<number>;time=<unix seconds>`, ' +
      'the last block written and its time, e.g. `8453;block=23145678;time=1764230000, 10;block=139012345;time=1764229998`. ' +
      'The answer includes at least these blocks. Absent while the indexer follows no chain',
  },
  Age: {
    type: 'integer',
    description:
      "Seconds since the database produced this answer, when it comes from the server's response cache " +
      `(which keeps an answer at most ${settingDefault('RESPONSE_CACHE_TTL_MS')} by default, \`RESPONSE_CACHE_TTL_MS\`)`,
  },
};

const APP_WIDE_RESPONSES: Record<string, unknown> = {
  429: {
    ...ref(ErrorResponse),
    description: 'Too many requests from this client IP; retry after Retry-After seconds',
    headers: { ...retryAfter, ...rateLimitHeaders },
  },
  500: { ...ref(ErrorResponse), description: 'Unexpected failure; the message is generic, the log has the detail' },
  503: {
    ...ref(ErrorResponse),
    description: 'The database is unavailable, the server is shutting down, or the block asked for with minBlock is not indexed within the bound the message names',
    headers: retryAfter,
  },
};

const NOT_MODIFIED = {
  type: 'null',
  description: 'Not Modified: the ETag in If-None-Match is still current; no body',
  headers: cacheHeaders,
};

type Responses = Record<string, Record<string, unknown>>;

export function withAppWideResponses({ schema, route }: { schema: FastifySchema; route: RouteOptions }) {
  if (!schema || (schema as { hide?: boolean }).hide) return { schema, url: route.url };
  const declared = (schema.response ?? {}) as Responses;
  const responses: Responses = { ...(APP_WIDE_RESPONSES as Responses), ...declared };
  // A route's own 503 says why the database matters to it; it still sends Retry-After.
  if (declared[503]) responses[503] = { headers: retryAfter, ...declared[503] };
  if (route.config?.publicCache === true && declared[200]) {
    responses[200] = { ...declared[200], headers: { ...cacheHeaders, ...(declared[200].headers as object) } };
    responses[304] = NOT_MODIFIED;
  }
  const ordered = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return { schema: { ...schema, response: ordered }, url: route.url };
}
