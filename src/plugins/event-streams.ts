import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { EventFeed, EventStreams, TrendingEvents } from '../events/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Reads the event log and hands each event to the streams that asked for it. */
    eventFeed: EventFeed;
    /** The open GET /events streams of this process, within their limits. */
    eventStreams: EventStreams;
  }
}

/**
 * The event feed and streams as components of the app: given to buildApp (tests hand in their own),
 * started when the app is ready; the streams end before the server closes (a hijacked stream would
 * otherwise keep it open), and the feed stops after.
 */
export const eventStreamsLifecycle = fp<{ feed: EventFeed; streams: EventStreams; trending: TrendingEvents }>(
  (app: FastifyInstance, { feed, streams, trending }, done) => {
    app.decorate('eventFeed', feed);
    app.decorate('eventStreams', streams);
    app.addHook('onReady', (ready) => {
      feed.start();
      streams.start();
      trending.start();
      ready();
    });
    app.addHook('preClose', (closing) => {
      streams.close();
      closing();
    });
    app.addHook('onClose', async () => {
      await trending.close();
      await feed.close();
    });
    done();
  },
  { name: 'event-streams' },
);
