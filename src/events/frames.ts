import type { EventPosition, StoredEvent } from '../repositories/events.repository.js';
import type { FilteredFields } from './event-filter.js';

/** An event as one Server-Sent Events frame, made once and written to every stream that takes it. */
export interface EventFrame {
  /** Its place in commit order; a refetch frame made for one stream has none. */
  position: EventPosition;
  /** What filters read; undefined for a frame that goes to every stream. */
  event: FilteredFields | undefined;
  bytes: Buffer;
}

/** The id of a position after every event of its transaction: where a stream starts, or follows from after a refetch. */
export const WHOLE_TRANSACTION = Number.MAX_SAFE_INTEGER;

/**
 * The SSE id of an event: `<commit position>-<event id>`, what a client sends back as Last-Event-ID;
 * a derived event's has a fraction (`1842-90211.001`): it follows the event of that id. A position
 * after a whole transaction is its commit position alone (`1842`): a stream's first line names
 * where it starts, so that a client that reconnects before its first event misses nothing.
 */
export const eventId = ({ seq, id }: EventPosition) => (id === WHOLE_TRANSACTION ? `${seq}` : `${seq}-${id}`);

const EVENT_ID = /^([0-9]{1,15})(?:-([0-9]{1,15}(?:\.[0-9]{1,3})?))?$/;

/** The position a Last-Event-ID names, or undefined when it is not one this service gave. */
export function parseEventId(text: string): EventPosition | undefined {
  const match = EVENT_ID.exec(text);
  if (!match) return undefined;
  return { seq: Number(match[1]), id: match[2] === undefined ? WHOLE_TRANSACTION : Number(match[2]) };
}

/** The frame a stream opens with: the client's reconnection delay, and the id of where the stream starts. */
export function openingFrame(start: EventPosition): Buffer {
  return Buffer.from(`retry: 1000\nid: ${eventId(start)}\n\n`);
}

export function frameOf(event: StoredEvent): EventFrame {
  // The stored data is JSON text on one line (jsonb's output has no newline), as an SSE data line must be.
  const bytes = Buffer.from(`id: ${eventId(event)}\nevent: ${event.type}\ndata: ${event.data}\n\n`);
  return { position: { seq: event.seq, id: event.id }, event, bytes };
}

/** An event a process derived (the trending top): no campaign, claimant or chain for filters to read. */
export function derivedFrame(position: EventPosition, type: string, data: unknown): EventFrame {
  const event = { type, chainId: null, campaignId: null, claimant: null };
  return { position, event, bytes: Buffer.from(`id: ${eventId(position)}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`) };
}

/**
 * Tells one stream that the events it asked for are not to be had: it must reread what it shows.
 * Its id is where the stream goes on from, so that a client reconnecting after it is not told again.
 */
export function refetchFrame(reason: string, from: EventPosition): EventFrame {
  return { position: from, event: undefined, bytes: Buffer.from(`id: ${eventId(from)}\nevent: refetch\ndata: ${JSON.stringify({ reason })}\n\n`) };
}

/** A comment line: keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT = Buffer.from(': heartbeat\n\n');
