import { isIP } from 'node:net';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parseChainlinkFeeds } from './chain/chainlink-feeds.js';
import { readSignerKeys } from './chain/signer-keys.js';
import { parseTargets } from './chain/targets.js';

/**
 * Every setting the service reads, from the environment, validated once.
 * This schema is the only place that knows the variable names, their types and defaults;
 * nothing else in the code reads `process.env`.
 */
const milliseconds = (defaultValue: number, description: string) =>
  Type.Integer({ minimum: 1, maximum: 3_600_000, default: defaultValue, description });
const LogLevel = Type.Union(
  [
    Type.Literal('fatal'),
    Type.Literal('error'),
    Type.Literal('warn'),
    Type.Literal('info'),
    Type.Literal('debug'),
    Type.Literal('trace'),
    Type.Literal('silent'),
  ],
  { default: 'info', description: 'Lowest level of the log lines written to stdout' },
);

export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'TCP port to listen on' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Interface to bind; 0.0.0.0 in containers' }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description: 'PostgreSQL connection string; absent = embedded PGlite',
    }),
  ),
  PGLITE_DATA_DIR: Type.String({
    minLength: 1,
    default: './data/pglite',
    description: 'Directory of the embedded database, or memory:// for a throwaway one',
  }),
  DEMO_DATA: Type.Optional(
    Type.Boolean({ description: 'Fill an empty database with demo data at start; default: on for the embedded database' }),
  ),
  DEMO_LIVE: Type.Optional(
    Type.Boolean({
      description:
        'With the demo data, write a new demo claim every DEMO_LIVE_INTERVAL_MS, so that GET /events has changes to send; default: on when the demo data is (DEMO_DATA), never without it',
    }),
  ),
  DEMO_LIVE_INTERVAL_MS: milliseconds(3000, 'How often the live demo (DEMO_LIVE) writes a claim'),
  LOG_LEVEL: LogLevel,
  LOG_FORMAT: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('pretty')], {
      description:
        'json: one JSON object a line; pretty: readable, coloured lines (pino-pretty, a devDependency). Default: pretty when stdout is a terminal and NODE_ENV is not production (npm start, npm run dev), json otherwise (pipes, files, the image)',
    }),
  ),
  MIGRATE_DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'Connection string the migrate command and MIGRATE_ON_START use (a role that owns the schema); default DATABASE_URL. Lets DATABASE_URL name a read-only role',
    }),
  ),
  DATABASE_READ_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'Connection string for the API\'s reads of public data, e.g. a hot standby; default DATABASE_URL. Bearer tokens are still checked on DATABASE_URL (the primary), so a revoked token is refused at once, not after replication',
    }),
  ),
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'Connections in the pg pool' }),
  DB_POOL_MODE: Type.Union([Type.Literal('session'), Type.Literal('transaction')], {
    default: 'session',
    description:
      'session: direct connections (or PgBouncer in session mode): settings at connection start, named prepared statements. transaction: PgBouncer in transaction mode: no startup parameters, timeouts set in each transaction, no named statement outlives its transaction',
  }),
  DB_READ_MAX_LAG_MS: Type.Integer({
    minimum: 0,
    maximum: 3_600_000,
    default: 30_000,
    description:
      'With DATABASE_READ_URL: replay lag of the standby above which readiness and the API answer 503 with Retry-After; 0 = no check',
  }),
  DB_STATEMENT_TIMEOUT_MS: milliseconds(5000, 'PostgreSQL statement_timeout of every API query; over it the answer is 504'),
  DB_QUERY_TIMEOUT_MS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      description:
        'Client-side limit on waiting for a query\'s answer (a dead network never hangs a request); default DB_STATEMENT_TIMEOUT_MS + 1000, must exceed it',
    }),
  ),
  DB_CONNECT_TIMEOUT_MS: milliseconds(2000, 'Time allowed to open one database connection'),
  DB_POOL_ACQUIRE_TIMEOUT_MS: milliseconds(
    2000,
    'Longest a request waits for a pool connection, opening one included; then 503',
  ),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: milliseconds(
    10_000,
    'PostgreSQL idle_in_transaction_session_timeout: a transaction left open by a stalled client is ended',
  ),
  DB_APPLICATION_NAME: Type.String({
    minLength: 1,
    maxLength: 63,
    default: 'campaign-service',
    description: 'application_name of the API\'s connections, as pg_stat_activity shows them',
  }),
  SHUTDOWN_GRACE_MS: milliseconds(10_000, 'Time in-flight requests get to finish on SIGTERM before the process exits'),
  CLAIM_WINDOW_REFRESH_MS: milliseconds(
    30_000,
    'How often explore contracts rereads which campaigns target which named contracts, when campaigns changed; claim volumes are exact at every request regardless',
  ),
  CLAIM_FEED_POLL_MS: milliseconds(
    1000,
    'How often the server reads the claim change feed in the background without notifications, and at most how often on them (requests read it themselves)',
  ),
  CLAIM_FEED_IDLE_POLL_MS: Type.Integer({
    minimum: 1000,
    maximum: 240_000,
    default: 60_000,
    description:
      'While the server listens for claim changes (LISTEN on the primary), how often it reads the feed when none was notified; at most 4 minutes, so it never falls behind the feed',
  }),
  CLAIM_LOAD_IN_WORKER: Type.Boolean({
    default: true,
    description:
      'On PostgreSQL, read the claims for a full load of the claim volumes (at start, after a bulk write) on a worker thread, so its garbage never reaches the server\'s heap; false reads them on the main thread',
  }),
  MIGRATE_ON_START: Type.Boolean({ default: true, description: 'Apply pending migrations before listening' }),
  BASE_URL: Type.Optional(
    Type.String({ pattern: '^https?://', description: 'Public URL of the public operations; default http://HOST:PORT' }),
  ),
  STAGING_URL: Type.Optional(
    Type.String({ pattern: '^https?://', description: 'Public URL of the staging operations; default BASE_URL' }),
  ),
  CACHE_MAX_AGE_S: Type.Integer({
    minimum: 0,
    maximum: 86_400,
    default: 10,
    description: 'max-age (seconds) of Cache-Control: public on the public API routes',
  }),
  RESPONSE_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 1000,
    description:
      'How long a public answer is served again from memory without asking the database; 0 turns the response cache off',
  }),
  INDEXED_BLOCKS_POLL_MS: milliseconds(
    250,
    'How often the server reads how far the indexer has written each chain (the Indexed-Blocks header of every public answer); 50 ms while a request waits for a block (minBlock)',
  ),
  READ_YOUR_WRITES_MAX_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 10_000,
    description: 'How long a request with minBlock waits at most for the indexer to write that block before it answers 503 with Retry-After',
  }),
  EVENTS_POLL_MS: milliseconds(100, 'How often the server reads the events committed since its last read, for the GET /events streams (only while one is open)'),
  EVENTS_TRENDING_MS: Type.Integer({
    minimum: 1000,
    maximum: 3_600_000,
    default: 1000,
    description: 'How often the 1h and 24h trending tops are compared with the last ones sent; a trending.changed event goes out per period that moved',
  }),
  EVENTS_KEEP: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 10_000,
    description: 'How many of the latest events the server keeps in memory for streams that resume; older ones are read from the database',
  }),
  EVENTS_MAX_STREAMS: Type.Integer({ minimum: 0, maximum: 100_000, default: 5_000, description: 'GET /events streams one server process holds open at most (then 503)' }),
  EVENTS_MAX_STREAMS_PER_IP: Type.Integer({ minimum: 1, maximum: 100_000, default: 20, description: 'GET /events streams one client IP holds open at most, per process (then 429)' }),
  EVENTS_HEARTBEAT_MS: milliseconds(15_000, 'How often an idle GET /events stream gets a comment line, so that proxies keep it open'),
  EVENTS_MAX_BUFFER_KB: Type.Integer({
    minimum: 16,
    maximum: 65_536,
    default: 256,
    description:
      'What may wait unsent for one GET /events client; past it the server writes that stream nothing more until the client has read it (the events wait in the event log, not in memory)',
  }),
  EVENTS_STALL_MS: milliseconds(
    30_000,
    'How long a GET /events client may leave what waits for it unread before its stream is closed (the client resumes with Last-Event-ID)',
  ),
  RESPONSE_CACHE_MAX_MB: Type.Integer({
    minimum: 1,
    maximum: 4096,
    default: 64,
    description: 'Memory the response cache may use at most; it keeps only the answers of the last RESPONSE_CACHE_TTL_MS, and the oldest of those make room',
  }),
  COMPRESSION_ENABLED: Type.Boolean({
    default: true,
    description:
      'Compress answers with brotli or gzip for clients whose Accept-Encoding takes either (brotli when both); false sends every answer uncompressed, e.g. behind a proxy that compresses',
  }),
  COMPRESSION_MIN_BYTES: Type.Integer({
    minimum: 1,
    maximum: 10_485_760,
    default: 1024,
    description:
      'Smallest answer body, in bytes, that is compressed: smaller ones fit in a packet or two anyway, so compressing them costs CPU for nothing. Answers at least this large carry Vary: Accept-Encoding',
  }),
  ENTRY_CACHE_SIZE: Type.Integer({
    minimum: 0,
    maximum: 100_000,
    default: 2000,
    description:
      'How many built trending and reward-kit entries the server keeps (about 2 KB each), reused while their campaign\'s rows are unchanged; 0 builds every entry per request',
  }),
  PROFILE_CACHE_MAX_MB: Type.Integer({
    minimum: 0,
    maximum: 4096,
    default: 16,
    description:
      "Memory for kept GET /reward-kit answers (about 1 KB per listed reward), served again while the claimant's rows, the campaigns and the clock leave them exact; 0 builds every profile per request",
  }),
  HISTORY_CACHE_MAX_MB: Type.Integer({
    minimum: 0,
    maximum: 4096,
    default: 8,
    description:
      'Memory for kept GET /campaigns/{id}/history answers (about 110 bytes a bucket), served again while the campaign, its incentives, its claims and the tokens are unchanged; 0 builds every history per request',
  }),
  CLAIM_HISTORY_APPLY_MS: milliseconds(
    1000,
    'How often the server applies the claims written since to the campaigns\' kept history (GET /campaigns/{id}/history reads it); answers are exact either way, as a read adds what is not applied yet, and it is quicker when that is little',
  ),
  CORS_ORIGINS: Type.Optional(
    Type.String({
      description:
        'Browser origins allowed to read the API, comma-separated (https://app.example.com); * for any; none for no CORS headers at all (a gateway answers CORS). Unset: any origin may read the public operations, none the staging ones',
    }),
  ),
  RATE_LIMIT_MAX: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 600,
    description: 'Requests per client IP per window; 0 turns the limit off (behind a gateway that limits)',
  }),
  RATE_LIMIT_WINDOW_MS: milliseconds(60_000, 'Length of the rate limit window'),
  RATE_LIMIT_REDIS_URL: Type.Optional(
    Type.String({
      pattern: '^rediss?://',
      description:
        'Redis that keeps the rate limit budgets, so that every replica shares one budget per client; unset = each process counts alone. Redis unreachable = requests pass (logged, counted in rate_limit_store_errors_total)',
    }),
  ),
  TRUST_PROXY: Type.String({
    default: '',
    description:
      'Proxies whose X-Forwarded-For is believed: comma-separated addresses or CIDRs (10.0.0.0/8), or loopback, linklocal, uniquelocal; empty = none. Never true',
  }),
  METRICS_ENABLED: Type.Boolean({ default: true, description: 'Serve Prometheus metrics at GET /metrics' }),
  METRICS_PORT: Type.Integer({
    minimum: 0,
    maximum: 65_535,
    default: 0,
    description: "Port of GET /metrics on HOST, apart from the API (a port the public proxy or compose does not publish); 0 = on the API's own port",
  }),
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 60_000,
      description:
        'Mean event loop delay over a second above which requests get 503 with Retry-After; 0 = off. Default 1000 with DATABASE_URL, 0 on the embedded database (its queries run on the event loop, so the delay measures the database, not overload)',
    }),
  ),
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0,
    description: 'Event loop utilization (0 to 1) above which requests get 503; 0 = off (a busy but prompt server is not overloaded)',
  }),
  OVERLOAD_MAX_HEAP_MB: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 0,
    description: 'V8 heap in use above which requests get 503; 0 = off',
  }),
  OVERLOAD_MAX_RSS_MB: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 0,
    description: 'Resident memory above which requests get 503; 0 = off',
  }),
  CHAIN_RPC_URLS: Type.Optional(
    Type.String({
      description:
        'The indexer (npm run index): the JSON-RPC endpoint of each chain to follow, comma-separated chainId=URL (8453=https://base.example/rpc,10=https://…)',
    }),
  ),
  INDEXER_CORES: Type.Optional(
    Type.String({
      description:
        'BoostCore deployments the indexer follows, comma-separated chainId:0xAddress:startBlock; default: the protocol\'s deployments on every chain of CHAIN_RPC_URLS',
    }),
  ),
  INDEXER_CONFIRMATIONS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 5,
    description: 'Blocks below the head the indexer waits for before it writes a block',
  }),
  INDEXER_BLOCK_RANGE: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 2000,
    description: 'Most blocks the indexer reads in one eth_getLogs range (smaller ranges follow when a node refuses one)',
  }),
  INDEXER_POLL_MS: milliseconds(1000, 'How often the indexer asks for a new head once it has caught up'),
  INDEXER_REORG_DEPTH: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 256,
    description: 'Blocks below the checkpoint whose hashes and writes the indexer remembers to undo a chain reorganisation',
  }),
  INDEXER_ALLOW_LIST_EDITS: Type.Union(
    [Type.Literal('transactions'), Type.Literal('trace_filter'), Type.Literal('debug_trace'), Type.Literal('off')],
    {
      default: 'transactions',
      description:
        'How the indexer finds the edits of SimpleAllowLists and SimpleDenyLists (setAllowed, setDenied emit no event): transactions: every block\'s transactions, those sent to a list (any node; misses an edit made through another contract); trace_filter: the call traces to the lists (trace_filter; Erigon, Reth, Nethermind); debug_trace: every block traced with the callTracer (debug_traceBlockByNumber; Geth); off: only the claims of AllowListIncentives. Costs in docs/operations.md',
    },
  ),
  INDEXER_LAG_BUDGET_S: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 120,
    description:
      'Readiness of the indexer: every chain\'s lag (its head\'s time less its last indexed block\'s, plus the time since that head was read, so that it grows while the RPC cannot be read) is at most this many seconds',
  }),
  SIGNER_PRIVATE_KEY: Type.Optional(
    Type.String({
      description:
        'GET /signatures: the private keys that sign claims, comma-separated 0x-prefixed 32-byte hex; a campaign is signed for by the first key its validator trusts (signers(address)), so a new key is added before the validators trust it and the old one removed after. Never logged. Unset with no SIGNER_KEY_FILE: GET /signatures answers 503',
    }),
  ),
  SIGNER_KEY_FILE: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'A file holding the signing keys instead of SIGNER_PRIVATE_KEY (a container secret): one key a line, # comments allowed',
    }),
  ),
  SIGNATURE_CONFIRMATIONS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 5,
    description:
      'GET /signatures: blocks a transaction must be below the head of its chain before it is signed for. A signature cannot be taken back if a reorganisation later drops its transaction',
  }),
  SIGNATURE_CALLER_AMOUNTS: Type.Boolean({
    default: false,
    description:
      'GET /signatures: whether a caller may choose the amount of an ERC20VariableIncentive in claimData (up to what the incentive has left); off = such incentives are not signed for',
  }),
  SIGNATURE_RATE_LIMIT_MAX: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 60,
    description: 'GET /signatures: requests per client IP per RATE_LIMIT_WINDOW_MS for this operation alone (each one reads the chain); 0 = the general RATE_LIMIT_MAX. No limit at all while RATE_LIMIT_MAX is 0',
  }),
  SIGNATURE_RPC_TIMEOUT_MS: milliseconds(5_000, 'GET /signatures: time one JSON-RPC request may take; beyond it the answer is a 503'),
  WEBHOOKS_ENABLED: Type.Boolean({
    default: true,
    description: 'Whether this process delivers webhooks to the endpoints registered with npm run webhooks (several replicas share the work)',
  }),
  WEBHOOK_SECRET_KEY: Type.Optional(
    Type.String({
      description:
        'The key that seals the webhook endpoints\' signing secrets in the database (32 bytes, base64: openssl rand -base64 32), so that a dump alone does not give them away. Needed to add an endpoint and to deliver. Never logged',
    }),
  ),
  WEBHOOK_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description: 'Whether webhook URLs may resolve to loopback, private, link-local or other non-public addresses (tests, internal networks)',
  }),
  WEBHOOK_TIMEOUT_MS: milliseconds(15_000, 'Time one webhook delivery may take before it counts as failed and is retried'),
  WEBHOOK_POLL_MS: milliseconds(200, 'How often the webhook deliverer looks for endpoints with events to deliver'),
  WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 32,
    description: 'Endpoints one process delivers to at once (each endpoint gets its events one at a time, in commit order)',
  }),
  WEBHOOK_DISABLE_AFTER: Type.Integer({
    minimum: 60,
    maximum: 2_592_000,
    default: 432_000,
    description:
      'Seconds an endpoint may fail every attempt before it is disabled (logged, counted in webhook_endpoints_disabled); npm run webhooks -- enable resumes it where it stopped',
  }),
  WEBHOOK_MAX_RETENTION: Type.Integer({
    minimum: 900,
    maximum: 2_592_000,
    default: 259_200,
    description:
      'Seconds events are kept for an enabled endpoint that has not had them yet; past it the endpoint gets a refetch message and goes on from the oldest event kept',
  }),
  INDEXER_RPC_TIMEOUT_MS: milliseconds(10_000, 'Time one JSON-RPC request of the indexer may take before it is retried'),
  INDEXER_METRICS_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 9464,
    description: 'Port of the indexer\'s /metrics and /health/ready (on HOST); 0 = none',
  }),
  PRICE_METRICS_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 9465,
    description: 'Port of the price command\'s (npm run prices) /metrics and /health/ready (on HOST); 0 = none',
  }),
  PRICE_SOURCES: Type.String({
    pattern: '^(none|(defillama|chainlink)(,(defillama|chainlink))*)$',
    default: 'defillama',
    description:
      'The price job\'s sources (the indexer runs the job beside it; npm run prices runs it alone), comma-separated: defillama (DefiLlama\'s coins API, no key), chainlink (the feeds of PRICE_CHAINLINK_FEEDS, read through CHAIN_RPC_URLS); none = no price job (prices come from imports only)',
  }),
  PRICE_DEFILLAMA_URL: Type.String({
    pattern: '^https?://',
    default: 'https://coins.llama.fi',
    description: "Base URL of DefiLlama's coins API (with a paid key: https://pro-api.llama.fi/<key>/coins)",
  }),
  PRICE_CHAIN_ALIASES: Type.Optional(
    Type.String({
      pattern: '^\\s*([0-9]{1,10}=[0-9]{1,10}\\s*(,\\s*[0-9]{1,10}=[0-9]{1,10}\\s*)*)?$',
      description:
        'DefiLlama: chains priced as another chain, comma-separated chainId=chainId (31337=8453: a local fork of Base, its tokens at the same addresses)',
    }),
  ),
  PRICE_CHAINLINK_FEEDS: Type.Optional(
    Type.String({
      description:
        'Chainlink: the USD feed of each token, comma-separated chainId:token=feed (8453:0x8335…2913=0x7e86…bc6B); the native token is 0x0000000000000000000000000000000000000000',
    }),
  ),
  PRICE_POLL_MS: milliseconds(60_000, 'How often the price job asks its sources for current prices'),
  PRICE_REQUEST_TIMEOUT_MS: milliseconds(10_000, 'Time one request to a price source may take'),
  PRICE_MAX_RETRY_AFTER_MS: milliseconds(600_000, "Longest wait a price source's Retry-After can impose before the job asks it again"),
});

type Settings = Static<typeof ConfigSchema>;

/** The settings as the app uses them: URLs resolved, lists split. */
export type Config = Omit<Settings, 'CORS_ORIGINS' | 'TRUST_PROXY' | 'DB_QUERY_TIMEOUT_MS' | 'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS'> & {
  /** json with NODE_ENV=production unless set; undefined: pretty on a terminal only (src/logger.ts). */
  LOG_FORMAT: 'json' | 'pretty' | undefined;
  /** Resolved: DB_STATEMENT_TIMEOUT_MS + 1000 unless set. */
  DB_QUERY_TIMEOUT_MS: number;
  /** Resolved: 1000 on PostgreSQL, 0 (off) on the embedded database, unless set. */
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: number;
  BASE_URL: string;
  STAGING_URL: string;
  /** Listed origins; `['*']` any; `[]` for `none` (no CORS at all); undefined when unset (src/plugins/external/cors.ts). */
  CORS_ORIGINS: string[] | undefined;
  /** Trusted proxy addresses or CIDRs; empty trusts none. */
  TRUST_PROXY: string[];
};

function priceSourceProblems(settings: Settings): string[] {
  const { feeds, problems } = parseChainlinkFeeds(settings.PRICE_CHAINLINK_FEEDS ?? '');
  if (settings.PRICE_SOURCES.split(',').includes('chainlink') && feeds.length === 0 && problems.length === 0) {
    problems.push('PRICE_SOURCES names chainlink, but PRICE_CHAINLINK_FEEDS maps no token to a feed');
  }
  return problems;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the settings from `env` (the process environment by default), applies defaults and
 * lists every problem at once. Empty strings count as "not set", as shells and compose files
 * often export empty variables.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.keys(ConfigSchema.properties);
  const raw: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }

  // Value.Convert would take `2.5` for an integer as 2: a whole number is refused unless written as one.
  const notWhole = Object.entries(raw).filter(
    ([key, value]) => (ConfigSchema.properties as Record<string, TSchema>)[key]?.type === 'integer' && !/^[+-]?[0-9]+$/.test(value.trim()),
  );
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, { ...raw, ...Object.fromEntries(notWhole.map(([key]) => [key, NaN])) }));
  // One problem per variable: a value can break several rules of its schema, which then says what it allows.
  const problems = [...new Map([...Value.Errors(ConfigSchema, converted)].map((error) => [error.path, error])).values()].map(
    (error) => `${error.path.slice(1) || 'config'}: ${describeProblem(error.schema, error.message)} (got ${shown(error.path.slice(1), raw[error.path.slice(1)])})`,
  );
  const settings = converted as Settings;
  const corsOrigins = splitList(settings.CORS_ORIGINS ?? '');
  const trustedProxies = splitList(settings.TRUST_PROXY ?? '');
  problems.push(...corsOriginProblems(corsOrigins), ...trustProxyProblems(trustedProxies), ...queryTimeoutProblems(settings), ...parseTargets(settings.CHAIN_RPC_URLS, settings.INDEXER_CORES).problems, ...priceSourceProblems(settings), ...readSignerKeys(settings).problems);
  if (problems.length > 0) throw new ConfigError(problems);

  const baseUrl = settings.BASE_URL ?? `http://${displayHost(settings.HOST)}:${settings.PORT}`;
  return {
    ...settings,
    // Production logs are for machines, even when someone runs the image with a terminal attached.
    LOG_FORMAT: settings.LOG_FORMAT ?? (env.NODE_ENV === 'production' ? 'json' : undefined),
    DB_QUERY_TIMEOUT_MS: settings.DB_QUERY_TIMEOUT_MS ?? settings.DB_STATEMENT_TIMEOUT_MS + QUERY_TIMEOUT_MARGIN_MS,
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS:
      settings.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS ?? (settings.DATABASE_URL === undefined ? 0 : DEFAULT_MAX_EVENT_LOOP_DELAY_MS),
    BASE_URL: baseUrl,
    STAGING_URL: settings.STAGING_URL ?? baseUrl,
    CORS_ORIGINS: corsOrigins.length === 0 ? undefined : corsOrigins[0] === CORS_NONE ? [] : corsOrigins,
    TRUST_PROXY: trustedProxies,
  };
}

/**
 * The client-side query timeout backs up the server's statement_timeout: when the server cancels a
 * query it also stops working on it, and the answer is an exact 504. Firing first, the client
 * would abandon a query the server keeps running, so it must wait a little longer.
 */
const QUERY_TIMEOUT_MARGIN_MS = 1000;

/** A second of mean event loop delay: far beyond any request's own work, so it means overload. */
const DEFAULT_MAX_EVENT_LOOP_DELAY_MS = 1000;

function queryTimeoutProblems(settings: Settings): string[] {
  const { DB_QUERY_TIMEOUT_MS: query, DB_STATEMENT_TIMEOUT_MS: statement } = settings;
  if (query === undefined || typeof statement !== 'number' || query > statement) return [];
  return [`DB_QUERY_TIMEOUT_MS: must exceed DB_STATEMENT_TIMEOUT_MS (${statement}), so that the server's own timeout fires first (got ${query})`];
}

const splitList = (value: string) =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** An origin is scheme://host[:port], exactly as a browser sends it in `Origin`: no path, no trailing slash. */
const ORIGIN = /^https?:\/\/[^/\s]+$/;

/** CORS_ORIGINS=none: the service sends no CORS header (empty would mean unset, as for every variable). */
const CORS_NONE = 'none';

function corsOriginProblems(origins: string[]): string[] {
  if (origins.includes('*') && origins.length > 1) return ['CORS_ORIGINS: * allows every origin; give it alone'];
  if (origins.includes(CORS_NONE) && origins.length > 1) return ['CORS_ORIGINS: none turns CORS off; give it alone'];
  return origins
    .filter((origin) => origin !== '*' && origin !== CORS_NONE && !ORIGIN.test(origin))
    .map((origin) => `CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin like https://app.example.com (no path, no trailing slash)`);
}

/** Named ranges proxy-addr (Fastify's trustProxy) understands. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `true` would believe any client's X-Forwarded-For and let every caller pick its own rate limit
 * key, so only addresses, CIDRs and proxy-addr's named ranges are accepted.
 */
function trustProxyProblems(entries: string[]): string[] {
  return entries.flatMap((entry) => {
    if (entry.toLowerCase() === 'true') {
      return ['TRUST_PROXY: true would trust every client\'s X-Forwarded-For; list the proxies\' addresses or CIDRs'];
    }
    return isProxyAddress(entry) ? [] : [`TRUST_PROXY: ${JSON.stringify(entry)} is not an IP address, a CIDR or loopback/linklocal/uniquelocal`];
  });
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/** Settings whose values are secrets: a problem names the variable, never its value. */
const SECRET_SETTINGS = new Set(['SIGNER_PRIVATE_KEY', 'WEBHOOK_SECRET_KEY']);

const shown = (key: string, value: string | undefined) => (SECRET_SETTINGS.has(key) ? '[redacted]' : JSON.stringify(value ?? null));

/** The URL patterns of the schema, in words. */
const URL_PATTERNS: Record<string, string> = {
  '^postgres(ql)?://': 'a postgres:// or postgresql:// URL',
  '^https?://': 'an http:// or https:// URL',
  '^rediss?://': 'a redis:// or rediss:// URL',
};

/** What the variable allows, from its schema: the values of a choice, the range of a number, a URL's scheme. */
function describeProblem(schema: TSchema, message: string): string {
  if (Array.isArray(schema.anyOf) && (schema.anyOf as TSchema[]).every((member) => member.const !== undefined)) {
    return `must be one of ${(schema.anyOf as TSchema[]).map((member) => String(member.const)).join(', ')}`;
  }
  if (schema.type === 'boolean') return 'must be true or false';
  const url = typeof schema.pattern === 'string' ? URL_PATTERNS[schema.pattern] : undefined;
  if (url) return `must be ${url}`;
  if (schema.type === 'integer' || schema.type === 'number') {
    const kind = schema.type === 'integer' ? 'a whole number' : 'a number';
    const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
    if (minimum !== undefined && maximum !== undefined) return `must be ${kind} from ${minimum} to ${maximum}`;
    if (minimum !== undefined) return `must be ${kind} of at least ${minimum}`;
    if (maximum !== undefined) return `must be ${kind} of at most ${maximum}`;
    return `must be ${kind}`;
  }
  return message.replace(/^Expected /, 'expected ');
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? 'localhost' : host;
}
