import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

interface Clearable {
  clear(): void;
}

/**
 * A cache as a component of the app: the plugin decorates the app with the instance it is given
 * under `decorator` (buildApp is handed one; tests hand in their own) and empties it when the app
 * closes. For caches that own no timers, whose entries are checked when they are read: emptying is
 * all their stop has to do.
 */
export function clearedOnClose<Decorator extends string, Cache extends Clearable>(decorator: Decorator, pluginName: string) {
  return fp<Record<Decorator, Cache>>(
    (app: FastifyInstance, options, done) => {
      const cache: Clearable = options[decorator];
      app.decorate<Clearable>(decorator, cache);
      app.addHook('onClose', (_instance, closed) => {
        cache.clear();
        closed();
      });
      done();
    },
    { name: pluginName },
  );
}
