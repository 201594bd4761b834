import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { prepareDemo } from './demo.js';
import { createLogger } from './logger.js';

/** Entry point: config -> database -> app -> listen, and a graceful stop on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  logger.info({ database: database.location }, 'database opened');

  if (config.MIGRATE_ON_START) {
    await database.migrate();
    logger.info('migrations applied');
  }
  const demoToken = (config.DEMO_DATA ?? database.kind === 'pglite') ? await prepareDemo(database, logger) : undefined;

  const app = await buildApp(config, { database, logger });
  await app.listen({ port: config.PORT, host: config.HOST });
  printStartupBlock(config, database.location, demoToken);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      logger.error({ graceMs: config.SHUTDOWN_GRACE_MS }, 'shutdown grace period exceeded; exiting');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS);
    deadline.unref();
    app
      .close()
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
}

function printStartupBlock(config: Config, location: string, demoToken: string | undefined): void {
  const lines = [
    '',
    `  Campaign service listening on ${config.BASE_URL}`,
    `  API docs:  ${config.BASE_URL}/docs   (OpenAPI: ${config.BASE_URL}/openapi.json)`,
    `  Database:  ${location}`,
  ];
  if (demoToken) {
    lines.push(
      '',
      '  Demo token for the staging routes (/campaigns/accesslists, /users/profile):',
      `  Authorization: Bearer ${demoToken}`,
      '',
      `  curl -H 'Authorization: Bearer ${demoToken}' ${config.STAGING_URL}/users/profile`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error(`campaign service failed to start: ${(error as Error).message}`);
  process.exit(1);
});
