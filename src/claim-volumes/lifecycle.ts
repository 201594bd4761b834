import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ClaimWindows } from './claim-windows.js';

/**
 * The claim volumes behind trending and explore contracts, a component with state and a background
 * job: it starts when the app is ready and stops, waiting for its work in flight, when the app closes.
 * The app is given the instance, so tests can hand it their own.
 */
export const claimWindowsLifecycle = fp(
  (app: FastifyInstance, { claimWindows }: { claimWindows: ClaimWindows }, done: (error?: Error) => void) => {
    app.decorate('claimWindows', claimWindows);
    app.addHook('onReady', (ready) => {
      claimWindows.start();
      ready();
    });
    app.addHook('onClose', async () => claimWindows.close());
    done();
  },
  { name: 'claim-windows' },
);
