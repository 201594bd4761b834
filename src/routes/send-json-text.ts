import type { FastifyReply } from 'fastify';
import type { JsonText } from '../json/json-text.js';
import type { JsonBuffer } from '../json/json-bytes.js';

/**
 * Sends JSON text the database serialized, or JSON bytes the service assembled, as the body. Fastify
 * passes a string or buffer with a JSON content type through untouched, so the route's response
 * schema documents the shape without re-serializing it.
 */
export function sendJsonText<T>(reply: FastifyReply, body: JsonText<T> | JsonBuffer<T>): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}
