import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { BEARER_SECURITY_SCHEME } from './auth/bearer-auth.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { envelope } from './errors.js';
import { MAX_PARAM_LENGTH, MAX_URL_LENGTH } from './http-limits.js';
import { errorHandler } from './plugins/error-handler.js';
import { notFound } from './plugins/not-found.js';
import { strictQuery } from './plugins/strict-query.js';
import { createRepositories, type Repositories } from './repositories/index.js';
import { campaignRoutes } from './routes/campaigns.js';
import { contractRoutes } from './routes/contracts.js';
import { healthRoutes } from './routes/health.js';
import { stagingRoutes } from './routes/staging.js';
import { trendingRoutes } from './routes/trending.js';
import { SHARED_SCHEMAS } from './schemas/index.js';
import { ClaimWindows } from './services/claim-windows.js';
import { describeValidationError } from './validation-messages.js';

declare module 'fastify' {
  interface FastifyInstance {
    repositories: Repositories;
    /** Exact claim volumes over the trailing windows, for the activity routes. */
    claimWindows: ClaimWindows;
    /** The current time; injected so that tests can pin it. */
    clock: () => Date;
  }
}

/** The app as routes see it: TypeBox schemas give handlers their types. */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface AppDependencies {
  database: DatabaseHandle;
  logger: Logger;
  /** Source of the current time (default: the system clock). */
  clock?: () => Date;
}

/**
 * Builds the whole HTTP application: every Fastify option, plugin and route, registered
 * explicitly in one visible order. It never reads the environment and never listens.
 */
export async function buildApp(config: Config, { database, logger, clock = () => new Date() }: AppDependencies): Promise<App> {
  // Fastify's logger type is pino's, minus fields Fastify never reads.
  const loggerInstance: FastifyBaseLogger = logger;
  const app = Fastify({
    loggerInstance,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    requestIdHeader: 'x-request-id',
    ajv: {
      customOptions: {
        // The strict-query hook converts query strings itself: no silent coercion of `1e2` or ` 10`.
        coerceTypes: false,
        // An unknown parameter is a 400, never silently dropped.
        removeAdditional: false,
        allErrors: false,
        // The error formatter reads each schema's `errorMessage` to word a 400.
        verbose: true,
        keywords: ['errorMessage'],
      },
    },
    schemaErrorFormatter: (errors, dataVar) => {
      const [first] = errors;
      return new Error(first ? describeValidationError(first, dataVar) : `${dataVar} is invalid`);
    },
    clientErrorHandler: (error, socket) => {
      // Malformed HTTP never reaches a route; answer it in the envelope too, then hang up.
      if (!socket.writable) return socket.destroy();
      const code = (error as NodeJS.ErrnoException).code;
      const [status, reason, message] =
        code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request Header Fields Too Large', 'request headers are too large']
          : [400, 'Bad Request', 'malformed HTTP request'];
      const body = JSON.stringify(envelope(message));
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  app.decorate('repositories', createRepositories(database.db));
  app.decorate('clock', clock);
  app.decorate(
    'claimWindows',
    new ClaimWindows(app.repositories.claimWindows, { refreshMs: config.CLAIM_WINDOW_REFRESH_MS, logger }),
  );

  await app.register(errorHandler);
  await app.register(notFound);
  await app.register(strictQuery);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Reward Campaign Service API',
        version: '2.0.0',
        description: 'Read-only HTTP JSON API for on-chain reward campaigns.',
      },
      servers: [
        { url: config.BASE_URL, description: 'Public operations' },
        ...(config.STAGING_URL === config.BASE_URL ? [] : [{ url: config.STAGING_URL, description: 'Staging operations' }]),
      ],
      components: {
        securitySchemes: { bearerAuth: BEARER_SECURITY_SCHEME },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => typeof json.$id === 'string' ? json.$id : `schema${index}` },
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.url.length > MAX_URL_LENGTH) {
      return reply.code(414).send(envelope(`request URL is longer than ${MAX_URL_LENGTH} characters`));
    }
  });

  await app.register(healthRoutes, { database });
  await app.register(campaignRoutes);
  await app.register(trendingRoutes);
  await app.register(contractRoutes);
  await app.register(stagingRoutes);

  return app;
}
