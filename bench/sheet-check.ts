/**
 * The client written from the public API's document alone (test/contract/public-api-sheet.ts; the
 * document: docs/public-api.md) against any database, for the data sets the contract test cannot hold (the 100,000-campaign set):
 * every one of the eighteen JSON operations, with the parameters the contract test uses, on ids read
 * from that database. Every answer must be a 200 that the client's schema accepts.
 *
 *   npm run check:sheet -- --database postgres://postgres@127.0.0.1:5432/campaigns_bench_100000
 *
 * Issues one bearer token (label "sheet-check") for the user with the highest score, as the
 * benchmark does, and revokes it when done. Exits 1 on the first answer the client refuses, with
 * the operation and the reason.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { type SQL, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { EXIT_USAGE, parseCommandLine, UsageError } from '../src/cli/command-line.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, queryRows } from '../src/db/client.js';
import { createApiTokensRepository } from '../src/repositories/api-tokens.repository.js';
import { SHEET } from '../test/contract/public-api-sheet.js';
import { walkEveryOperation } from '../test/contract/sheet-walk.js';

// A CommonJS module: Node's ESM loader hands over its exports object, whose `default` is the plugin;
// TypeScript types it either way, by module resolution.
type FormatsPlugin = typeof ajvFormats extends { default: infer Plugin } ? Plugin : typeof ajvFormats;
const addFormats = ('default' in ajvFormats ? ajvFormats.default : ajvFormats) as FormatsPlugin;

const USAGE = `Usage: npm run check:sheet -- --database <postgres URL of a seeded database>

Runs the client written from the public API's document (test/contract/public-api-sheet.ts) over every
one of the eighteen JSON operations on the ids of that database, with a bearer token it issues for its
top user and revokes when done. Exits 1 on the first answer that is not a 200 the client accepts.`;

/** The database to check; --help prints the usage and exits 0, a wrong command line exits 2, as the commands of src/cli/ do. */
function databaseUrl(): string {
  try {
    const parsed = parseCommandLine(USAGE, { options: { database: { type: 'string' } } });
    if (!parsed) process.exit(0);
    if (!parsed.values.database) throw new UsageError('--database is required');
    return parsed.values.database;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }
}

const config = loadConfig({ DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn', RESPONSE_CACHE_TTL_MS: '0', RATE_LIMIT_MAX: '0' });
const database = await openDatabase(config);
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>(Object.entries(SHEET).map(([id, schema]) => [id, ajv.compile(schema)]));
const answers = new Map<string, { calls: number; bytes: number }>();

const [user] = await queryRows<{ id: string; address: string }>(database.db, sql`SELECT id::text, address FROM users ORDER BY score DESC, id LIMIT 1`);
if (!user) throw new Error('the database has no users: seed it first (npm run seed)');
const tokens = createApiTokensRepository(database.db);
const { token } = await tokens.createToken(user.id, 'sheet-check');
const app = await buildApp(config, { database, logger: pino({ level: 'warn' }) });
await app.ready();
await app.claimWindows.whenLoaded(120_000);

try {
  const call = async (operationId: string, url: string, auth = false): Promise<unknown> => {
    const response = await app.inject({ url, headers: auth ? { authorization: `Bearer ${token}` } : {} });
    if (response.statusCode !== 200) throw new Error(`${operationId} ${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    const body: unknown = response.json();
    const validate = validators.get(operationId)!;
    if (!validate(body)) throw new Error(`${operationId} ${url}: the client refuses the answer: ${ajv.errorsText(validate.errors)}`);
    const seen = answers.get(operationId) ?? { calls: 0, bytes: 0 };
    answers.set(operationId, { calls: seen.calls + 1, bytes: seen.bytes + response.rawPayload.length });
    return body;
  };
  const ids = async (query: SQL) => (await queryRows<{ id: string }>(database.read, query)).map((row) => row.id);
  await walkEveryOperation(call, ids, user.address);
  const missing = Object.keys(SHEET).filter((operationId) => !answers.has(operationId));
  if (missing.length > 0) throw new Error(`operations never called: ${missing.join(', ')}`);
  for (const [operationId, { calls, bytes }] of [...answers].sort()) {
    console.log(`${operationId.padEnd(26)} ${String(calls).padStart(4)} answers  ${(bytes / 1024).toFixed(0).padStart(7)} KiB`);
  }
  console.log(`all ${answers.size} operations: every answer accepted by the public API's client`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await app.close();
  // A check leaves no live credential behind in the database it read.
  await tokens.revokeTokensLabelled('sheet-check');
  await database.close();
}
