import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { SignerTrustCheck } from '../services/signer-trust-check.js';

/** The start-up check of the validators' trust in the signing keys: started when the app is ready, closed with it. */
export const signerTrustCheckLifecycle = fp<{ check: SignerTrustCheck }>(
  (app: FastifyInstance, { check }, done) => {
    app.addHook('onReady', (ready) => {
      check.start();
      ready();
    });
    app.addHook('onClose', async () => {
      await check.close();
    });
    done();
  },
  { name: 'signer-trust-check' },
);
