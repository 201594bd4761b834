import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { envelope } from './errors.js';
import { MAX_PARAM_LENGTH, MAX_URL_LENGTH } from './http-limits.js';
import { RequestLogController } from './logger.js';
import { type ClaimWindows, claimWindowsLifecycle, createClaimVolumes } from './claim-volumes/index.js';
import { entryCacheLifecycle } from './plugins/entry-cache.js';
import { profileCacheLifecycle } from './plugins/profile-cache.js';
import { historyCacheLifecycle } from './plugins/history-cache.js';
import { errorHandler } from './plugins/error-handler.js';
import { compression, responseCompressionFor } from './plugins/external/compression.js';
import { corsPolicy } from './plugins/external/cors.js';
import { openApi } from './plugins/external/openapi.js';
import { overloadProtection } from './plugins/external/overload.js';
import { cachingSerializerFactory } from './serializer-cache.js';
import { rateLimitPerClient } from './plugins/external/rate-limit.js';
import { securityHeaders } from './plugins/external/security-headers.js';
import {
  metrics,
  rateLimitStoreErrors,
  registerClaimWindowsMetrics,
  registerEventStreamMetrics,
  registerEntryCacheMetrics,
  registerProfileCacheMetrics,
  registerHistoryCacheMetrics,
} from './plugins/metrics.js';
import { notFound } from './plugins/not-found.js';
import { publicCache } from './plugins/public-cache.js';
import { echoRequestId, requestIdFor } from './plugins/request-id.js';
import { responseCache } from './plugins/response-cache.js';
import { refuseWhileClosing } from './plugins/shutdown.js';
import { refuseWhileReplicaLags } from './plugins/replica-lag-gate.js';
import { refuseUntilStarted } from './plugins/startup-gate.js';
import { strictQuery } from './plugins/strict-query.js';
import { freshness } from './plugins/freshness.js';
import { createClaimHistoryApplier } from './services/claim-history-applier.js';
import { createIndexedBlocks, type IndexedBlocks } from './services/indexed-blocks.js';
import { createEventFeed, createEventStreams, createTrendingEvents, type EventFeed } from './events/index.js';
import { eventStreamsLifecycle } from './plugins/event-streams.js';
import { eventRoutes } from './routes/events.js';
import { createRepositories, type Repositories } from './repositories/index.js';
import { campaignRoutes } from './routes/campaigns.js';
import { contractRoutes } from './routes/contracts.js';
import { healthRoutes } from './routes/health.js';
import { stagingRoutes } from './routes/staging.js';
import { trendingRoutes } from './routes/trending.js';
import { registryRoutes } from './routes/registry.js';
import { rewardKitRoutes } from './routes/reward-kit.js';
import { exploreRoutes } from './routes/explore.js';
import { historyRoutes } from './routes/history.js';
import { signatureRoutes } from './routes/signatures.js';
import { registerWebhookMetrics } from './plugins/webhooks.js';
import { createWebhookDeliveryRepository } from './repositories/webhooks.repository.js';
import { createWebhookDeliverer, type WebhookDeliverer } from './webhooks/deliverer.js';
import { type ClaimSigning, createClaimSigning } from './services/claim-signing.js';
import { SignerTrustCheck, VALIDATORS_CHECKED_AT_START } from './services/signer-trust-check.js';
import { componentLifecycle } from './plugins/component-lifecycle.js';
import { leaderboardRoutes } from './routes/leaderboard.js';
import { SHARED_SCHEMAS } from './schemas/index.js';
import { createEntryCache, type EntryCache } from './services/entry-cache.js';
import { createProfileCache, type ProfileCache } from './services/profile-cache.js';
import { createHistoryCache, type HistoryCache } from './services/history-cache.js';
import { replicaLagFor } from './plugins/replica-lag.js';
import { STARTED, type StartupStatus } from './startup.js';
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
  /** Start-up work still pending (migrations), during which the API answers 503 (default: none). */
  startup?: StartupStatus;
  /** The claim volumes of the activity routes (default: one over `database`, started and closed with the app). */
  claimWindows?: ClaimWindows;
  /** The trending and reward-kit operations' built entries (default: ENTRY_CACHE_SIZE of them, emptied when the app closes). */
  entryCache?: EntryCache;
  /** GET /reward-kit's kept answers (default: PROFILE_CACHE_MAX_MB of them, emptied when the app closes). */
  profileCache?: ProfileCache;
  /** GET /campaigns/{id}/history's kept answers (default: HISTORY_CACHE_MAX_MB of them, emptied when the app closes). */
  historyCache?: HistoryCache;
  /** Where the indexed data stands (default: read from the read database every INDEXED_BLOCKS_POLL_MS, started and closed with the app). */
  indexedBlocks?: IndexedBlocks;
  /** What reads the event log for GET /events (default: one reading the read database every EVENTS_POLL_MS). */
  eventFeed?: EventFeed;
  /** GET /signatures' checks and keys (default: from SIGNER_PRIVATE_KEY or SIGNER_KEY_FILE and CHAIN_RPC_URLS). */
  claimSignatures?: ClaimSigning;
  /** Delivers the event log to the webhook endpoints (default: from the WEBHOOK_* settings; none without WEBHOOK_SECRET_KEY). */
  webhookDeliverer?: WebhookDeliverer | null;
}

/**
 * Builds the whole HTTP application: every Fastify option, plugin and route, registered
 * explicitly in one visible order. It never reads the environment and never listens.
 */
export async function buildApp(
  config: Config,
  { database, logger, clock = () => new Date(), startup = STARTED, claimWindows, entryCache, profileCache, historyCache, indexedBlocks, eventFeed, claimSignatures, webhookDeliverer }: AppDependencies,
): Promise<App> {
  // Fastify's logger type is pino's, minus fields Fastify never reads.
  const loggerInstance: FastifyBaseLogger = logger;
  const app = Fastify({
    loggerInstance,
    // One line per request, when it completes, with its method, URL, status and time (src/logger.ts).
    logController: new RequestLogController(),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // The caller's X-Request-Id when it is safe to log and echo, a fresh UUID otherwise.
    requestIdHeader: false,
    genReqId: requestIdFor,
    // Only the named proxies' X-Forwarded-For is believed: trusting everyone would let any client
    // choose the IP its rate limit is counted under.
    trustProxy: config.TRUST_PROXY.length > 0 ? config.TRUST_PROXY : false,
    // Requests arriving during shutdown get the envelope from refuseWhileClosing, not Fastify's own body.
    return503OnClosing: false,
    // Identical response schemas compile once per process (see serializer-cache.ts).
    schemaController: { compilersFactory: { buildSerializer: cachingSerializerFactory } },
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
    // Paths the router cannot take apart (a stray `%`, an over-long segment) get Fastify's own body
    // unless handled here: the envelope instead, as for every other error.
    frameworkErrors: (error, _request, reply) => {
      const [status, message] =
        error.code === 'FST_ERR_BAD_URL'
          ? [400, 'malformed URL: the path is not valid percent-encoding']
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? [414, `a path segment is longer than ${MAX_PARAM_LENGTH} characters`]
            : [500, 'internal server error'];
      void (reply as FastifyReply).code(status).type('application/json; charset=utf-8').send(envelope(message));
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
  app.decorate('repositories', createRepositories(database.db, database.read));
  app.decorate('clock', clock);
  await app.register(claimWindowsLifecycle, { claimWindows: claimWindows ?? createClaimVolumes({ config, database, logger, startup, clock }) });
  await app.register(entryCacheLifecycle, { entryCache: entryCache ?? createEntryCache(config) });
  await app.register(profileCacheLifecycle, { profileCache: profileCache ?? createProfileCache(config) });
  await app.register(historyCacheLifecycle, { historyCache: historyCache ?? createHistoryCache(config) });

  const feed = eventFeed ?? createEventFeed(config, { events: app.repositories.events, logger });
  await app.register(eventStreamsLifecycle, {
    feed,
    trending: createTrendingEvents(config, { windows: app.claimWindows, feed, clock, logger }),
    streams: createEventStreams(config, logger),
  });

  // Before any route (GET /metrics comes with the metrics plugin): @fastify/compress attaches its
  // hook to each route as it is added. The hook comes last on every route, after the public and
  // response caches' (which put theirs first): cache headers and 304s are decided on the
  // uncompressed body, and the response cache keeps that.
  const responseCompression = responseCompressionFor(config);
  if (responseCompression) await app.register(compression, { policy: responseCompression });

  // The app's own plugins: errors, routing rules, tracing, shutdown, metrics, HTTP caching.
  await app.register(errorHandler);
  await app.register(notFound);
  // Before strict-query: it adds minBlock to the query schema of every public route.
  await app.register(freshness, {
    indexedBlocks: indexedBlocks ?? createIndexedBlocks(config, { read: () => app.repositories.indexedBlocks.positions(), logger, startup }),
    maxWaitMs: config.READ_YOUR_WRITES_MAX_WAIT_MS,
  });
  await app.register(strictQuery);
  await app.register(echoRequestId);
  await app.register(refuseWhileClosing);
  if (config.METRICS_ENABLED) await app.register(metrics, { pool: database.pool, route: config.METRICS_PORT === 0 });
  if (app.metricsRegistry) {
    registerEntryCacheMetrics(app.metricsRegistry, app.entryCache);
    registerProfileCacheMetrics(app.metricsRegistry, app.profileCache);
    registerHistoryCacheMetrics(app.metricsRegistry, app.historyCache);
    registerClaimWindowsMetrics(app.metricsRegistry, app.claimWindows);
    registerEventStreamMetrics(app.metricsRegistry, app.eventStreams, app.eventFeed);
  }
  const webhookDelivery = createWebhookDeliveryRepository(database.db);
  const deliverer =
    webhookDeliverer === undefined
      ? createWebhookDeliverer(config, { repository: webhookDelivery, logger, isReady: () => startup.pending() === undefined })
      : webhookDeliverer;
  if (deliverer) {
    await app.register(componentLifecycle, { component: deliverer });
    if (app.metricsRegistry) registerWebhookMetrics(app.metricsRegistry, deliverer, webhookDelivery);
  }
  // Before the response cache: its onRequest hook must run first, so that cached answers count
  // against the budget and carry its headers.
  if (config.RATE_LIMIT_MAX > 0) {
    const storeErrors = app.metricsRegistry && rateLimitStoreErrors(app.metricsRegistry);
    await app.register(rateLimitPerClient, {
      max: config.RATE_LIMIT_MAX,
      windowMs: config.RATE_LIMIT_WINDOW_MS,
      redisUrl: config.RATE_LIMIT_REDIS_URL,
      logger,
      onStoreError: () => storeErrors?.inc(),
    });
  }
  await app.register(publicCache, { maxAgeSeconds: config.CACHE_MAX_AGE_S, compression: responseCompression });
  if (config.RESPONSE_CACHE_TTL_MS > 0) {
    await app.register(responseCache, {
      ttlMs: config.RESPONSE_CACHE_TTL_MS,
      maxBytes: config.RESPONSE_CACHE_MAX_MB * 1024 * 1024,
      now: () => clock().getTime(),
      compression: responseCompression,
    });
  }

  // Third-party plugins, wired in src/plugins/external.
  await app.register(securityHeaders);
  await app.register(corsPolicy, { origins: config.CORS_ORIGINS });
  await app.register(overloadProtection, {
    maxEventLoopDelayMs: config.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
    maxEventLoopUtilization: config.OVERLOAD_MAX_EVENT_LOOP_UTILIZATION,
    maxHeapMb: config.OVERLOAD_MAX_HEAP_MB,
    maxRssMb: config.OVERLOAD_MAX_RSS_MB,
  });
  await app.register(openApi, { baseUrl: config.BASE_URL, stagingUrl: config.STAGING_URL });

  app.addHook('onRequest', async (request, reply) => {
    if (request.url.length > MAX_URL_LENGTH) {
      return reply.code(414).send(envelope(`request URL is longer than ${MAX_URL_LENGTH} characters`));
    }
  });

  const signatures = claimSignatures ?? await createClaimSigning(config, { repository: app.repositories.signatures, write: database.db, clock, logger });
  await app.register(componentLifecycle, {
    component: new SignerTrustCheck({
      canSign: signatures.canSign,
      validators: () => app.repositories.signatures.activeValidators(clock(), VALIDATORS_CHECKED_AT_START),
      check: (validators) => signatures.checkValidators(validators),
      startup,
      signers: signatures.signerAddresses,
      logger,
    }),
  });

  await app.register(componentLifecycle, {
    component: createClaimHistoryApplier(config, { apply: (timeoutMs) => app.repositories.history.applyClaimChanges(timeoutMs), startup, logger }),
  });

  const replicaLag = replicaLagFor(config, () => app.repositories.replication.replayLagMs());
  await app.register(healthRoutes, { database, startup, replicaLag });
  // The API needs the migrated schema: until start-up work is done, it answers 503.
  await app.register(async (api) => {
    await api.register(refuseUntilStarted, { startup });
    if (replicaLag) await api.register(refuseWhileReplicaLags, { lag: replicaLag });
    await api.register(campaignRoutes);
    await api.register(trendingRoutes);
    await api.register(contractRoutes);
    await api.register(registryRoutes);
    await api.register(rewardKitRoutes);
    await api.register(exploreRoutes);
    await api.register(historyRoutes);
    await api.register(leaderboardRoutes);
    await api.register(stagingRoutes);
    await api.register(eventRoutes);
    await api.register(signatureRoutes, {
      signatures,
      rateLimitMax: config.SIGNATURE_RATE_LIMIT_MAX,
      rateLimitWindowMs: config.RATE_LIMIT_WINDOW_MS,
    });
  });

  return app;
}
