import { BEARER_SECURITY_SCHEME } from '../auth/bearer-auth.js';
/**
 * The prose of the API document: what a consumer reads before the first call. It states the
 * defaults; an operator may change the numbers (docs/configuration.md). All but the first paragraph
 * is folded (`<details>`), so that the docs page shows the operations on its first screen.
 */
export const API_TITLE = 'Reward Campaign Service API';
export const API_VERSION = '2.0.0';

export const API_DESCRIPTION = `Read-only HTTP JSON API over on-chain reward campaigns: campaigns with their incentives and
action steps, campaigns trending by value claimed, the contracts campaigns target, and, for a signed-in user, their
access lists and profile. Every operation is a GET. On the zero-setup start (the embedded demo), the required parameters'
examples are demo data, so "Try it out" answers with data at once.

<details>
<summary>Servers, authentication, errors, pagination, caching, rate limits, browsers, conventions</summary>

## Servers
The document's server serves the public operations. The staging operations (\`/campaigns/accesslists\`,
\`/users/profile\`) each name their own server, the staging one, which generated clients and this page use for them.
One deployment may serve both, and the two URLs may be the same.

## Authentication
The public operations need no credential. The staging operations need \`Authorization: Bearer <token>\`: a missing,
invalid or revoked token is a 401 with \`WWW-Authenticate: Bearer\`; a valid token asking for another user's data is
a 403. Operators issue tokens with \`npm run token\`; the embedded demo prints a ready one when it starts.

## Errors
Every error, of every operation and of the server itself, is \`application/json\` with exactly one key:
\`{ "error": "<what went wrong>" }\`.

| Status | When |
|---|---|
| 400 | A parameter is invalid; the message names it. Unknown query parameters, a scalar parameter given twice and integers not written in plain decimal digits are rejected too. |
| 401 | Missing, invalid or revoked bearer token (staging operations). |
| 403 | The token is valid but asks for another user's data. |
| 404 | Unknown campaign, or unknown route. |
| 405 | Known path, other method; \`Allow\` lists the methods. |
| 413 | A request body over 1 MiB, with a method other than GET or HEAD (no operation takes a body). |
| 414 | Request URL longer than 8192 characters. |
| 429 | Rate limited; \`Retry-After\` says when to try again. |
| 431 | Request headers over 16 KiB all together. |
| 500 | Unexpected failure; the message is generic, the detail is logged under the request id. |
| 503 | Database unavailable or server shutting down; retry after \`Retry-After\` seconds. |
| 504 | The query exceeded its time budget; narrow it down or retry. |

Every response carries \`X-Request-Id\`: the one you sent, if it is 1 to 64 characters of \`A-Z a-z 0-9 . _ -\`,
otherwise a generated one. Quote it when reporting a problem.

## Pagination
\`page\` counts from 1 (0 is read as 1); \`pageSize\` is 0 to 100, default 10 (0 returns no items, only the total).
List answers carry the number of matches on all pages (\`totalCampaigns\`, \`totalAccesslists\`). Every sort breaks ties
on \`id\`, so consecutive pages never overlap or skip.

## Caching
Successful answers of the public operations carry \`Cache-Control: public, max-age=10\` and a strong \`ETag\`; send the
tag back in \`If-None-Match\` to get \`304 Not Modified\` without a body. Errors carry neither. Staging answers are
\`Cache-Control: private, no-store\`.

## Compression
Larger answers (by default those of 1 KB or more) come compressed when \`Accept-Encoding\` allows: brotli (\`br\`) when
the client takes it, else \`gzip\`; they carry \`Vary: Accept-Encoding\`. A compressed answer's \`ETag\` is the weak form
(\`W/"..."\`) of the uncompressed body's tag; \`If-None-Match\` accepts either form for any encoding of the same body.

## Rate limits
Each client IP has a budget of requests per window (by default 600 per minute), shared by every replica of the
service. Answers carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (seconds), and the same
as the IETF draft's \`RateLimit-Policy\` and \`RateLimit\`; over budget the answer is a 429 with \`Retry-After\` (seconds).

## Browsers
By default a page on any origin may read the public operations (CORS, \`Access-Control-Allow-Origin: *\`, no
credentials); the staging operations only from the origins the operator allows, who may also narrow the public ones.
GET and HEAD only. Scripts can read \`ETag\`, \`X-Request-Id\`, \`Retry-After\` and the rate limit headers, and
may send \`Authorization\`.

## Conventions
- Addresses match \`^0x[a-fA-F0-9]{40}$\`, are accepted in any case and returned in lowercase.
- Large numbers (amounts, fees, counts, indexes) are strings of decimal digits, up to uint256; \`chainId\` is a number.
- A campaign ID is \`<chain_id>:<campaign_core_address>:<identifier>\`.
- Date-times are ISO 8601 UTC; \`blockTimestamp\` is unix seconds as a string.
- List parameters are comma-separated (at most 50 entries); booleans are \`true\` or \`false\`.

</details>`;

export const API_TAGS = [
  { name: 'campaigns', description: 'Campaigns with their incentives and action steps: the filtered list, and one campaign by ID.' },
  { name: 'activity', description: 'What is happening now: campaigns trending by value claimed, and the contracts campaigns target.' },
  { name: 'reward-kit', description: "Rewards as a reward widget shows them: lists, a user's profile, one reward, claimable signatures." },
  { name: 'action-templates', description: 'Action templates campaigns are made from, with their configuration and project.' },
  { name: 'budget-accounts', description: 'The budget registry with its members. E-mail addresses are never served.' },
  { name: 'registry', description: 'Reference data: known event and function signatures, the token blocklist.' },
  { name: 'staging', description: "A signed-in user's own data, from the staging server. Needs a bearer token." },
  { name: 'events', description: 'Changes pushed as they commit, as Server-Sent Events: no polling after a claim.' },
];

/** Applied only to the operations whose route declares `security: [{ bearerAuth: [] }]`. */
export const SECURITY_SCHEMES = { bearerAuth: BEARER_SECURITY_SCHEME };
