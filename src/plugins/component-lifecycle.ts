import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** A background component of the app: started once, closed after what it has in flight. */
export interface AppComponent {
  start(): void;
  close(): Promise<void>;
}

/**
 * A component given to buildApp (tests hand in their own) as part of the app: started when the app
 * is ready, closed with it. Registered once per component, under its own name.
 */
export const componentLifecycle = fp<{ component: AppComponent }>((app: FastifyInstance, { component }, done) => {
  app.addHook('onReady', (ready) => {
    component.start();
    ready();
  });
  app.addHook('onClose', async () => {
    await component.close();
  });
  done();
});
