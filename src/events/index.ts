/** The event streams (GET /events): the feed that reads the event log, and the open streams it writes to. */
export { EventFeed, type EventSink, type RefetchReason } from './event-feed.js';
export type { EventFilter } from './event-filter.js';
export { EventStreams, type Refusal, type StreamLimits, type StreamSlot } from './event-streams.js';
export { eventId, openingFrame, parseEventId } from './frames.js';
export { TrendingEvents } from './trending-events.js';
