import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, TOKEN_FORMAT } from '../../src/api-token.js';
import { type DatabaseHandle, queryRows } from '../../src/db/client.js';
import { createApiTokensRepository } from '../../src/repositories/api-tokens.repository.js';
import { buildTestApp } from '../helpers/app.js';
import { type CommandResult, databaseForCommands, runBuiltCommand } from '../helpers/built-command.js';
import { insertUser } from '../helpers/factories.js';

/**
 * The token command end to end, as an operator runs it in the image (`node dist/cli/token.js`; `npm
 * run token` runs the same source with tsx): a separate process on the test's
 * PostgreSQL database, or (on PGlite) on an embedded database in a temporary directory that the
 * test closes before each run, since an embedded database has one user at a time.
 */
// Every step starts a process; on a small, busy machine that takes seconds each.
describe('npm run token', { timeout: 120_000 }, () => {
  let environment: Record<string, string>;
  let withDatabase: <T>(work: (database: DatabaseHandle) => Promise<T>) => Promise<T>;
  let cleanUp: () => Promise<void>;
  let user: { id: string; address: string };

  beforeAll(async () => {
    ({ environment, withDatabase, cleanUp } = await databaseForCommands('token-cli-'));
    user = await withDatabase(({ db }) => insertUser(db));
  });
  afterAll(async () => {
    await cleanUp();
  });

  const token = (...args: string[]) => tokenWith(environment, ...args);

  const tokenWith = (database: Record<string, string>, ...args: string[]): Promise<CommandResult> =>
    runBuiltCommand('dist/cli/token.js', args, { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...database });

  const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

  /** What the server answers to the token on a staging route. */
  const statusWith = (issued: string) =>
    withDatabase(async (database) => {
      const app = await buildTestApp(database);
      try {
        return (await app.inject({ url: '/users/profile', headers: { authorization: `Bearer ${issued}` } })).statusCode;
      } finally {
        await app.close();
      }
    });

  it('creates a token by address, prints it once as the last line, and stores only its hash', async () => {
    const created = await token('create', '--user', user.address.toUpperCase().replace('0X', '0x'), '--label', 'ci bot');
    expect(created.code).toBe(0);
    const issued = lastLine(created.stdout);
    expect(issued).toMatch(TOKEN_FORMAT);
    expect(created.stdout.split(issued).length - 1).toBe(1);

    const rows = await withDatabase(({ db }) =>
      queryRows<{ token_hash: string; label: string; user_id: string; holds_clear_token: boolean }>(
        db,
        sql`SELECT token_hash, label, user_id, t::text LIKE ${`%${issued}%`} AS holds_clear_token FROM api_tokens AS t`,
      ),
    );
    expect(rows).toEqual([{ token_hash: hashToken(issued), label: 'ci bot', user_id: user.id, holds_clear_token: false }]);
  });

  it('creates a token by user id, lists tokens without them, and revokes one: the server refuses it at once', async () => {
    const created = await token('create', '--user', user.id);
    expect(created.code).toBe(0);
    const issued = lastLine(created.stdout);
    const owner = await withDatabase(({ db }) => createApiTokensRepository(db).findTokenOwner(issued));
    expect(owner).toMatchObject({ userId: user.id, address: user.address });
    const id = String(owner!.tokenId);
    expect(await statusWith(issued)).toBe(200);

    const listed = await token('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(issued);
    expect(listed.stdout).not.toMatch(/cs_[A-Za-z0-9_-]{43}/);
    const [header, ...lines] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+USER\s+USER ID\s+LABEL\s+CREATED\s+REVOKED$/);
    expect(lines).toHaveLength(2);
    const line = lines.find((text) => text.startsWith(`${id} `));
    expect(line).toContain(user.address);
    expect(line).toMatch(/ -$/); // not revoked

    const revoked = await token('revoke', id);
    expect(revoked.code).toBe(0);
    expect(await statusWith(issued)).toBe(401);
    expect(lastLine((await token('list')).stdout)).toMatch(/\d{4}-\d\d-\d\dT[0-9:.]+Z$/);

    const again = await token('revoke', id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no active token with id ${id}`);
  });

  it('explains usage errors (exit 2, with the usage), unknown users and unusable databases (exit 1), and prints nothing on stdout', async () => {
    // Each run starts a process (seconds on a small machine): a few representative cases, side by side.
    const cases: [string[], string, number][] = [
      [[], 'missing command', 2],
      [['create', '--user', 'alice'], '--user must be an address (0x followed by 40 hexadecimal characters) or a user id', 2],
      [['list', '--label', 'x'], '--user and --label belong to create, not to list', 2],
      [['revoke', 'abc'], "revoke needs a token id, a positive whole number (got 'abc')", 2],
      [['list', '--bogus-flag'], 'unknown option --bogus-flag', 2],
      [['create', '--user'], "Option '--user <value>' argument missing", 2],
      [['create', '--user', '0x0000000000000000000000000000000000000001'], 'no user 0x0000000000000000000000000000000000000001 in ', 1],
    ];
    const results = await Promise.all(cases.map(([args]) => token(...args)));

    // The embedded database: missing, or held by a running process (this test's, named in the lock beside it).
    const inUse = await mkdtemp(join(tmpdir(), 'token-cli-in-use-'));
    await writeFile(`${inUse}.lock`, `${process.pid}\n`);
    cases.push(
      [['list'], `no embedded database at ${inUse}-missing`, 1],
      [['list'], `the embedded database at ${inUse} is in use by process ${process.pid}`, 1],
    );
    try {
      results.push(
        ...(await Promise.all([
          tokenWith({ PGLITE_DATA_DIR: `${inUse}-missing` }, 'list'),
          tokenWith({ PGLITE_DATA_DIR: inUse }, 'list'),
        ])),
      );
    } finally {
      await rm(inUse, { recursive: true, force: true });
      await rm(`${inUse}.lock`, { force: true });
    }
    results.forEach((result, index) => {
      const [, message, code] = cases[index]!;
      expect(result.code).toBe(code);
      expect(result.stderr).toContain(message);
      expect(result.stderr.includes('Usage:')).toBe(code === 2);
      expect(result.stdout).toBe('');
    });
  });

  it('--help prints the usage and touches no database', async () => {
    const missing = join(tmpdir(), `token-cli-help-${process.pid}`);
    const help = await tokenWith({ PGLITE_DATA_DIR: missing }, 'list', '--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage:/);
    expect(existsSync(missing)).toBe(false);
  });
});
