/** The event streams (GET /events): the feed that reads the event log, and the open streams it writes to. */
export { createEventFeed, EventFeed, type EventSink, type RefetchReason } from './event-feed.js';
export type { EventFilter } from './event-filter.js';
export { createEventStreams, EventStreams, type Refusal, type StreamLimits, type StreamSlot } from './event-streams.js';
export { eventId, openingFrame, parseEventId } from './frames.js';
export { createTrendingEvents, TrendingEvents } from './trending-events.js';
