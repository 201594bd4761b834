import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

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
  { default: 'info' },
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
  LOG_LEVEL: LogLevel,
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'Connections in the pg pool' }),
  DB_STATEMENT_TIMEOUT_MS: milliseconds(5000, 'PostgreSQL statement_timeout of every API query'),
  DB_CONNECT_TIMEOUT_MS: milliseconds(2000, 'Time allowed to open a database connection'),
  SHUTDOWN_GRACE_MS: milliseconds(10_000, 'Time in-flight requests get to finish on SIGTERM before the process exits'),
  CLAIM_WINDOW_REFRESH_MS: milliseconds(
    30_000,
    'How often the claim-volume snapshot behind trending and explore contracts is rebuilt; volumes stay exact in between',
  ),
  MIGRATE_ON_START: Type.Boolean({ default: true, description: 'Apply pending migrations before listening' }),
  BASE_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'Public URL of the public operations' })),
  STAGING_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'Public URL of the staging operations' })),
});

export type Config = Static<typeof ConfigSchema> & { BASE_URL: string; STAGING_URL: string };

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

  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw));
  const problems = [...Value.Errors(ConfigSchema, converted)].map(
    (error) => `${error.path.slice(1) || 'config'}: ${describeProblem(error.message)} (got ${JSON.stringify(raw[error.path.slice(1)] ?? null)})`,
  );
  if (problems.length > 0) throw new ConfigError(problems);

  const config = converted as Static<typeof ConfigSchema>;
  const baseUrl = config.BASE_URL ?? `http://${displayHost(config.HOST)}:${config.PORT}`;
  return { ...config, BASE_URL: baseUrl, STAGING_URL: config.STAGING_URL ?? baseUrl };
}

function describeProblem(message: string): string {
  return message.replace(/^Expected /, 'expected ');
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? 'localhost' : host;
}
