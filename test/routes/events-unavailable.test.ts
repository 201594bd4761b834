import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventFeed } from '../../src/events/event-feed.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** A new stream whose start cannot be read (the event log unreachable) is a 503 saying so, before any stream begins. */
describe('GET /events when the event log cannot be read', () => {
  let database: TestDatabase;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  beforeAll(async () => {
    database = await createTestDatabase();
    const unreachable = async () => Promise.reject(new Error('connection refused'));
    const eventFeed = new EventFeed({ events: { after: unreachable, head: unreachable }, pollMs: 3_600_000, keepEvents: 10, logger: { warn: () => undefined } });
    app = await buildTestApp(database, {}, () => undefined, { eventFeed });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('answers 503 with Retry-After and no detail of the failure', async () => {
    const response = await app.inject({ url: '/events' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBeDefined();
    expect(response.json()).toEqual({ error: 'the event log cannot be read right now; retry shortly' });
  });
});
