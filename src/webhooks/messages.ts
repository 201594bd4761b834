import { eventId, WHOLE_TRANSACTION } from '../events/frames.js';
import type { EventPosition } from '../repositories/events.repository.js';
import type { WebhookEvent } from '../repositories/webhooks.repository.js';

/** One webhook message: its id (the `webhook-id` header, the same on every retry) and its JSON body. */
export interface WebhookMessage {
  id: string;
  /** Where the endpoint stands once its receiver accepted it. */
  position: EventPosition;
  body: string;
}

/**
 * An event as a webhook carries it, in the Standard Webhooks payload shape: its type, when it was
 * committed, and its data as GET /events sends it. The id is the event's GET /events id.
 */
export function eventMessage(event: WebhookEvent): WebhookMessage {
  const position = { seq: event.seq, id: event.id };
  // The stored data is JSON text already: it goes in as it is.
  const body = `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.committedAt)},"data":${event.data}}`;
  return { id: eventId(position), position, body };
}

/**
 * Tells an endpoint that events it had not had are no longer kept (it was behind for longer than
 * WEBHOOK_MAX_RETENTION): its receiver must reread what it holds. Its id is the position it goes on
 * from, as a GET /events refetch's is.
 */
export function refetchMessage(prunedThrough: number, at: Date): WebhookMessage {
  const position = { seq: prunedThrough, id: WHOLE_TRANSACTION };
  const reason = `events through ${prunedThrough} are no longer kept (WEBHOOK_MAX_RETENTION); reread what you hold`;
  return { id: eventId(position), position, body: JSON.stringify({ type: 'refetch', timestamp: at.toISOString(), data: { reason } }) };
}

/** Whether the events after `cursor` are deleted in part: the endpoint gets a refetch first. */
export function isPruned(cursor: EventPosition, prunedThrough: number): boolean {
  return cursor.seq < prunedThrough || (cursor.seq === prunedThrough && cursor.id !== WHOLE_TRANSACTION);
}
