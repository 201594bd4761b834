import { existsSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { type DatabaseHandle, openDatabase } from '../db/client.js';
import { type ApiTokensRepository, createApiTokensRepository } from '../repositories/api-tokens.repository.js';
import { CommandError, parseCommandLine, runCommand, UsageError } from './command-line.js';

const USAGE = `Usage:
  npm run token -- create --user <address-or-user-id> [--label <label>]
  npm run token -- list
  npm run token -- revoke <token-id>

Issues, lists and revokes the bearer tokens of the staging routes (/campaigns/accesslists,
/users/profile) on DATABASE_URL, or on the embedded database at PGLITE_DATA_DIR when
DATABASE_URL is not set (stop the server first: the embedded database has one user at a time).

create   issues a token for an existing user, given by address or by user id (UUID). Only the
         token's SHA-256 hash is stored; the token is printed once, as the last line of output.
list     shows every token: id, user, label, created, revoked. Never the token itself.
revoke   revokes a token at once: the next request that presents it gets a 401.`;

const ADDRESS = /^0x[a-fA-F0-9]{40}$/;
const USER_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const TOKEN_ID = /^[1-9][0-9]{0,8}$/;
const MAX_LABEL_LENGTH = 100;
const UNDEFINED_TABLE = '42P01';

interface Arguments {
  command: string | undefined;
  operands: string[];
  user: string | undefined;
  label: string | undefined;
}

/** `npm run token`: a thin command line over the api-tokens repository. */
async function main(): Promise<void> {
  const args = parseArguments();
  if (!args) return;
  const run = commandFor(args);
  const config = loadConfig();
  if (!config.DATABASE_URL) checkEmbeddedDatabase(config.PGLITE_DATA_DIR);
  const database = await openDatabase(config);
  try {
    await run(createApiTokensRepository(database.db), database);
  } catch (error) {
    throw explainMissingSchema(error, database);
  } finally {
    await database.close();
  }
}

/** The arguments, or null after --help. */
function parseArguments(): Arguments | null {
  const parsed = parseCommandLine(USAGE, { options: { user: { type: 'string' }, label: { type: 'string' } }, allowPositionals: true });
  if (!parsed) return null;
  const [command, ...operands] = parsed.positionals;
  return { command, operands, user: parsed.values.user, label: parsed.values.label };
}

type Command = (tokens: ApiTokensRepository, database: DatabaseHandle) => Promise<void>;

/** Checks the arguments completely before the database is opened. */
function commandFor(args: Arguments): Command {
  switch (args.command) {
    case 'create': {
      expectOperands(args, 0);
      if (args.user === undefined) throw new UsageError('create needs --user <address-or-user-id>');
      const user = args.user.trim();
      if (!ADDRESS.test(user) && !USER_ID.test(user)) {
        throw new UsageError('--user must be an address (0x followed by 40 hexadecimal characters) or a user id (UUID)');
      }
      const label = args.label === undefined ? null : parseLabel(args.label);
      return (tokens, database) => createToken(tokens, database, user, label);
    }
    case 'list':
      expectOperands(args, 0);
      rejectCreateOptions(args);
      return listTokens;
    case 'revoke': {
      rejectCreateOptions(args);
      expectOperands(args, 1);
      const id = args.operands[0]!;
      if (!TOKEN_ID.test(id)) throw new UsageError(`revoke needs a token id, a positive whole number (got '${id}')`);
      return (tokens) => revokeToken(tokens, Number(id));
    }
    case undefined:
      throw new UsageError('missing command: create, list or revoke');
    default:
      throw new UsageError(`unknown command '${args.command}': use create, list or revoke`);
  }
}

function expectOperands(args: Arguments, count: number): void {
  if (args.operands.length > count) throw new UsageError(`unexpected argument '${args.operands[count]}'`);
  if (args.operands.length < count) throw new UsageError(`${args.command} needs a token id`);
}

function rejectCreateOptions(args: Arguments): void {
  if (args.user !== undefined || args.label !== undefined) {
    throw new UsageError(`--user and --label belong to create, not to ${args.command}`);
  }
}

function parseLabel(raw: string): string {
  const label = raw.trim();
  // eslint-disable-next-line no-control-regex
  if (label === '' || label.length > MAX_LABEL_LENGTH || /[\u0000-\u001f\u007f]/.test(label)) {
    throw new UsageError(`--label must be 1 to ${MAX_LABEL_LENGTH} printable characters`);
  }
  return label;
}

async function createToken(tokens: ApiTokensRepository, database: DatabaseHandle, user: string, label: string | null) {
  const owner = ADDRESS.test(user)
    ? await tokens.findUserIdByAddress(user).then((id) => (id ? { id, address: user.toLowerCase() } : null))
    : await tokens.findUserById(user.toLowerCase());
  if (!owner) throw new CommandError(`no user ${user} in ${database.location}`);
  const { id, token } = await tokens.createToken(owner.id, label);
  console.log(`Issued token ${id} for user ${owner.address} (${owner.id})${label === null ? '' : ` labelled '${label}'`}.`);
  console.log('It is shown only this once and cannot be recovered; only its hash is stored. The token:');
  console.log(token);
}

async function listTokens(tokens: ApiTokensRepository, database: DatabaseHandle) {
  const rows = await tokens.listTokens();
  if (rows.length === 0) {
    console.log(`No tokens in ${database.location}.`);
    return;
  }
  const table = [
    ['ID', 'USER', 'USER ID', 'LABEL', 'CREATED', 'REVOKED'],
    ...rows.map((row) => [
      String(row.id),
      row.userAddress,
      row.userId,
      row.label ?? '-',
      row.createdAt.toISOString(),
      row.revokedAt?.toISOString() ?? '-',
    ]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
  for (const cells of table) console.log(cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
}

async function revokeToken(tokens: ApiTokensRepository, id: number) {
  if (!(await tokens.revokeToken(id))) throw new CommandError(`no active token with id ${id} (unknown or already revoked)`);
  console.log(`Revoked token ${id}: it is refused from now on.`);
}

/**
 * Opening a missing embedded database would create an empty one; say so instead. One held by a
 * running server is refused when opened (src/db/pglite-lock.ts).
 */
function checkEmbeddedDatabase(dataDir: string): void {
  if (dataDir.startsWith('memory://')) throw new CommandError('PGLITE_DATA_DIR is memory://: there are no tokens to manage');
  if (!existsSync(dataDir)) {
    throw new CommandError(`no embedded database at ${dataDir}: start the server once, or set DATABASE_URL or PGLITE_DATA_DIR`);
  }
}

function explainMissingSchema(error: unknown, database: DatabaseHandle): unknown {
  for (let cause: unknown = error, depth = 0; cause && typeof cause === 'object' && depth < 5; depth++) {
    if ((cause as { code?: unknown }).code === UNDEFINED_TABLE) {
      return new CommandError(`${database.location} has no api_tokens table yet: run npm run db:migrate (or start the server once)`);
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return error;
}

runCommand(USAGE, 'token command failed', main);
