import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { OutgoingHttpHeaders } from 'node:http';
import { badRequest, HttpError, RETRY_AFTER_SECONDS, serviceUnavailable } from '../errors.js';
import { type EventFilter, openingFrame, parseEventId } from '../events/index.js';
import { CampaignEvent, CampaignRemovedEvent, ClaimEvent, EventsQuery, RefetchEvent, SignatureIssuedEvent, TrendingEvent } from '../schemas/events.js';
import { ref } from '../schemas/typebox.js';
import { settingDefault } from '../setting-defaults.js';
import { PUBLIC_ERROR_RESPONSES } from './error-responses.js';

const STREAM_DESCRIPTION = `Server-Sent Events (text/event-stream). Each event is

\`\`\`
id: <commit position>-<event id>
event: <type>
data: <JSON>
\`\`\`

Types and their data: \`claim.written\` and \`claim.removed\` (ClaimEvent), \`draw.written\` and
\`draw.removed\` (ClaimEvent: a RAFFLE's draw, its payout to the winner; not a claim), \`campaign.created\` and
\`campaign.changed\` (CampaignEvent), \`campaign.removed\` (CampaignRemovedEvent), \`trending.changed\` (TrendingEvent),
\`signature.issued\` (SignatureIssuedEvent), \`refetch\` (RefetchEvent).
Ids order the events in the order their writes committed, the same on every replica; a client that
reconnects with \`Last-Event-ID\` (EventSource does it by itself) gets exactly the events it missed,
within the retention of 15 minutes; older, one \`refetch\` event, then the stream goes on from now.
The stream opens with an id line alone (\`id: 1842\`, where it starts), so that a client that loses
it before its first event resumes from there. A \`Last-Event-ID\` this server's event log has not
reached gets a \`refetch\` at once (its id is where the stream goes on from), never silence.
A comment line (\`: heartbeat\`) comes on an idle stream, every ${settingDefault('EVENTS_HEARTBEAT_MS')} by default
(\`EVENTS_HEARTBEAT_MS\`). A stream is written as fast as its client reads, whatever arrives at once; a client that
reads nothing while events wait for it, for ${settingDefault('EVENTS_STALL_MS')} by default (\`EVENTS_STALL_MS\`), is
disconnected, and resumes with Last-Event-ID.`;

// Swagger UI waits for a whole answer before it shows one, and a stream never ends: its Execute spins.
const OPERATION_DESCRIPTION = `Opens a Server-Sent Events stream of the changes the filters select: claims written and removed,
campaigns created, changed and removed, as their transactions commit, and the 1h and 24h trending top when it moves.
Filters combine with AND. By default a client IP may hold at most ${settingDefault('EVENTS_MAX_STREAMS_PER_IP')} streams
(\`EVENTS_MAX_STREAMS_PER_IP\`), and a server process at most ${settingDefault('EVENTS_MAX_STREAMS')} (\`EVENTS_MAX_STREAMS\`).

This page cannot show a stream: "Execute" waits for an answer that never ends. Watch one from a terminal instead
(\`-N\` prints each event as it comes), or with \`EventSource\` in a browser. On the demo data (a start with no
configuration) a new claim comes every ${settingDefault('DEMO_LIVE_INTERVAL_MS')} by default (\`DEMO_LIVE_INTERVAL_MS\`):

\`\`\`
curl -N 'http://127.0.0.1:3000/events?type=claim.written,campaign.created'
\`\`\``;

const STREAM_EXAMPLE =
  'retry: 1000\nid: 1841\n\n' +
  'id: 1842-90211\nevent: claim.written\ndata: {"amount": "1000000", "chainId": 8453, "txHash": "0x4f2a9c0e7d1b3a5f6e8c9d0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e", ' +
  '"logIndex": 12, "claimant": "0x4a2c7e0b9f3d1a6e8c5b2d7f0a9e3c1b6d8f4a2c", "usdValue": 1.0, "claimedAt": "2026-11-27T10:15:02.000Z", ' +
  '"campaignId": "8453:0x378632819f39c74c4f56b1429e760739c5fb51b7:1247", "blockNumber": 23145678, "valuePending": false, "incentivePosition": 0}\n\n' +
  ': heartbeat\n\n';

/** GET /events: the changes of the data, pushed as they commit. */
export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { eventFeed: feed, eventStreams: streams } = app;

  app.get(
    '/events',
    {
      schema: {
        operationId: 'streamEvents',
        tags: ['events'],
        summary: 'Stream changes as they happen',
        description: OPERATION_DESCRIPTION,
        querystring: EventsQuery,
        response: {
          200: {
            description: STREAM_DESCRIPTION,
            content: { 'text/event-stream': { schema: Type.Union([ref(ClaimEvent), ref(CampaignEvent), ref(CampaignRemovedEvent), ref(TrendingEvent), ref(SignatureIssuedEvent), ref(RefetchEvent)]), example: STREAM_EXAMPLE } },
          },
          400: PUBLIC_ERROR_RESPONSES[400],
          429: {
            ...PUBLIC_ERROR_RESPONSES[400],
            description: `This client IP holds as many streams open as it may already (${settingDefault('EVENTS_MAX_STREAMS_PER_IP')} by default, \`EVENTS_MAX_STREAMS_PER_IP\`); retry after Retry-After seconds`,
          },
          503: {
            ...PUBLIC_ERROR_RESPONSES[503],
            description: `This process holds as many streams as it may (${settingDefault('EVENTS_MAX_STREAMS')} by default, \`EVENTS_MAX_STREAMS\`), or the database is unavailable; retry after Retry-After seconds`,
          },
        },
      },
    },
    async (request, reply) => {
      const { query } = request;
      const header = request.headers['last-event-id'];
      const lastEventId = typeof header === 'string' && header !== '' ? header : query.lastEventId;
      const from = lastEventId === undefined ? undefined : parseEventId(lastEventId);
      if (lastEventId !== undefined && from === undefined) throw badRequest('Last-Event-ID must be an event id this service sent, <number> or <number>-<number>');
      const filter: EventFilter = {
        ...(query.type && { types: new Set(query.type) }),
        ...(query.campaignId && { campaignIds: new Set(query.campaignId.map((id) => id.toLowerCase())) }),
        ...(query.claimant && { claimant: query.claimant.toLowerCase() }),
        ...(query.chainId !== undefined && { chainIds: new Set([query.chainId]) }),
      };
      // The slot is taken before the first await: requests that arrive together cannot all pass the limits.
      const slot = streams.admit(request.ip);
      if (slot === 'per-ip') {
        throw new HttpError(429, `this client IP has ${streams.limits.maxPerIp} event streams open already, the most allowed`, {
          'retry-after': String(RETRY_AFTER_SECONDS),
        });
      }
      if (slot === 'per-process') throw serviceUnavailable('this server holds as many event streams as it may; retry shortly');

      // Where the stream starts, before its headers go: a client that writes once its stream is open
      // gets what it wrote.
      let start = from;
      try {
        start ??= await feed.position();
      } catch (error) {
        slot.release();
        request.log.warn({ err: error }, 'could not read the event log for a new stream');
        throw serviceUnavailable('the event log cannot be read right now; retry shortly');
      }

      // From here the stream is written by hand: the headers the hooks set so far (CORS, request id,
      // rate limit) go with it, and nothing may buffer it (a proxy, compression).
      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, {
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      });
      // The first line names where the stream starts: a client that loses it before its first event
      // resumes from there with Last-Event-ID instead of from whenever it reconnects.
      response.write(openingFrame(start));
      let unsubscribe: (() => void) | undefined;
      let closed = false;
      const sink = slot.open(response, () => {
        closed = true;
        unsubscribe?.();
      });
      try {
        unsubscribe = await feed.subscribe(filter, sink, start);
        if (closed) unsubscribe();
      } catch (error) {
        request.log.warn({ err: error }, 'could not start an event stream');
        response.destroy();
      }
    },
  );
};
