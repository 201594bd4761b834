import type { buildApp as BuildApp } from './app.js';
import { EXIT_USAGE, parseCommandLine, UsageError } from './cli/command-line.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { EmbeddedDatabaseInUse } from './db/pglite-lock.js';
import type { DemoLiveWriter } from './demo-live.js';
import { createServerLogger } from './logger.js';
import { serveMetrics } from './plugins/metrics.js';
import { STARTED, StartupWork } from './startup.js';

/**
 * Entry point: config -> database -> app -> listen, then the start-up work (migrations, demo data),
 * and a graceful stop on SIGTERM/SIGINT.
 *
 * The server listens before it migrates, so that a database that is down at start does not keep
 * it from starting: readiness and the API answer 503 until the work is done, and the work is
 * retried until the database answers (src/startup.ts).
 */
const USAGE = `Usage: npm start        (npm run dev; in the image: node dist/server.js)

Starts the campaign service. Every setting comes from the environment (docs/configuration.md);
the command takes no arguments.`;

async function main(): Promise<void> {
  if (!parseCommandLine(USAGE, {})) return;
  const config = loadConfig();
  const logger = await createServerLogger(config);
  // A promise rejected with no handler is a bug to fix, not a reason to drop every request in
  // flight: it is logged with its stack and the server keeps serving.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));
  // The app's modules load while the database opens: PGlite compiles its WebAssembly and reads its
  // files meanwhile, and a restart answers that much sooner.
  const [{ buildApp }, database] = await Promise.all([import('./app.js') as Promise<{ buildApp: typeof BuildApp }>, openDatabase(config, logger)]);
  logger.info({ database: database.location, reads: database.readLocation, poolMode: config.DB_POOL_MODE }, 'database opened');
  if (config.MIGRATE_DATABASE_URL && database.kind === 'pglite') {
    logger.warn('MIGRATE_DATABASE_URL is ignored: without DATABASE_URL the embedded database is used');
  }

  const demo = config.DEMO_DATA ?? database.kind === 'pglite';
  // Fake claims belong in the demo data only, never in a database of real ones.
  const demoLive = demo && (config.DEMO_LIVE ?? true);
  if (config.DEMO_LIVE && !demo) logger.warn('DEMO_LIVE is ignored: it writes claims only on the demo data (DEMO_DATA)');
  const startup = new StartupWork(logger, config.MIGRATE_ON_START ? 'database migrations are not applied yet' : 'loading demo data');
  // Without migrations or demo data to wait for, the API answers at once; the connection check
  // below still runs, and a refusal it finds ends the process.
  const app = await buildApp(config, { database, logger, startup: config.MIGRATE_ON_START || demo ? startup : STARTED });
  // The start banner is Fastify's own "listening" log line (JSON where the logs are JSON), once per address bound.
  await app.listen({
    port: config.PORT,
    host: config.HOST,
    listenTextResolver: (address) => `campaign service listening on ${address}; API docs at ${config.BASE_URL}/docs (OpenAPI: ${config.BASE_URL}/openapi.json)`,
  });
  const metricsServer = config.METRICS_ENABLED && config.METRICS_PORT > 0 ? await serveMetrics(app, config.HOST, config.METRICS_PORT) : undefined;
  if (metricsServer) logger.info(`metrics at ${metricsServer.url}/metrics`);

  let stopping = false;
  let liveWriter: DemoLiveWriter | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    startup.stop();
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      logger.error({ graceMs: config.SHUTDOWN_GRACE_MS }, 'shutdown grace period exceeded; exiting');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS);
    deadline.unref();
    // The demo's writes stop first: the one in flight ends before the database closes.
    Promise.resolve(liveWriter?.close())
      .then(() => app.close())
      .then(() => metricsServer?.close())
      .then(() => database.close())
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'error during shutdown');
        process.exit(1);
      });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  const demoToken = await startup.run(async () => {
    // A database that refuses the connection (wrong role or database, a pooler refusing the
    // settings) ends the process here with a message saying what to fix, instead of 503s forever.
    await database.verify();
    if (config.MIGRATE_ON_START) {
      await database.migrate();
      logger.info('migrations applied');
    }
    if (!demo) return undefined;
    // Loaded only for the demo: its data generator is memory a server of real data never needs.
    const { prepareDemo } = await import('./demo.js');
    return prepareDemo(database, logger);
  });
  if (!stopping) logger.info('ready');
  // The embedded demo's token exists to be copied from here; a token issued by `npm run token` is never logged.
  if (demoToken) {
    logger.info(
      { demoToken, example: `curl -H 'Authorization: Bearer ${demoToken}' ${config.STAGING_URL}/users/profile` },
      `demo token for the staging routes (/campaigns/accesslists, /users/profile): Authorization: Bearer ${demoToken}`,
    );
  }
  if (demoLive && demoToken && !stopping) {
    const { DemoLiveWriter } = await import('./demo-live.js');
    // A signal during the import has begun the shutdown, which found no writer to stop.
    if (stopping) return;
    liveWriter = new DemoLiveWriter({ database, logger, intervalMs: config.DEMO_LIVE_INTERVAL_MS });
    liveWriter.start();
    logger.info(
      `demo: a new claim every ${config.DEMO_LIVE_INTERVAL_MS / 1000} s, streamed by GET /events; watch: curl -N ${config.BASE_URL}/events (DEMO_LIVE=false stops it)`,
    );
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }
  if (error instanceof ConfigError || error instanceof EmbeddedDatabaseInUse) console.error(error.message);
  else console.error(`campaign service failed to start: ${(error as Error).message}`);
  process.exit(1);
});
