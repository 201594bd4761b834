import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { SecretBox } from '../../src/webhooks/secret-box.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign } from '../helpers/factories.js';

const run = promisify(execFile);
/** Each test starts a process per command (about a second each on a loaded machine): a dozen or more of them. */
const COMMANDS_TIMEOUT_MS = 180_000;

/** npm run webhooks as the image runs it (node dist/cli/webhooks.js, built by global-build), on PostgreSQL. */
describe.runIf(inject('testDatabase').kind === 'postgres')('node dist/cli/webhooks.js', () => {
  let database: TestDatabase;
  const key = randomBytes(32).toString('base64');

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  const webhooks = async (args: string[], env: Record<string, string> = { WEBHOOK_SECRET_KEY: key, WEBHOOK_ALLOW_PRIVATE: 'true' }) => {
    try {
      const { stdout, stderr } = await run('node', ['dist/cli/webhooks.js', ...args], {
        env: { PATH: process.env.PATH, DATABASE_URL: database.url, LOG_LEVEL: 'silent', ...env },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  };
  const lastLine = (text: string) => text.trim().split('\n').at(-1)!;

  it('adds an endpoint and shows its secret once, sealed in the database; refuses what it cannot deliver to', async () => {
    const withoutKey = await webhooks(['add', 'http://127.0.0.1:9/hooks'], { WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(withoutKey.code).toBe(1);
    expect(withoutKey.stderr).toContain('WEBHOOK_SECRET_KEY is not set');
    expect(withoutKey.stderr).toContain('openssl rand -base64 32');

    const loopback = await webhooks(['add', 'http://localhost:9/hooks'], { WEBHOOK_SECRET_KEY: key });
    expect(loopback.code).toBe(1);
    expect(loopback.stderr).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address; set WEBHOOK_ALLOW_PRIVATE=true/);
    const metadata = await webhooks(['add', 'http://169.254.169.254/latest/meta-data'], { WEBHOOK_SECRET_KEY: key });
    expect(metadata.code).toBe(1);
    expect(metadata.stderr).toContain('link-local');

    const badType = await webhooks(['add', 'http://127.0.0.1:9/hooks', '--type', 'claim.written,claims.eaten']);
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain("--type: 'claims.eaten' is not an event type");

    const added = await webhooks(['add', 'http://127.0.0.1:9/hooks', '--type', 'claim.written', '--chain-id', '8453', '--description', 'CRM']);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^Added endpoint [0-9]+: it gets the events committed from now on\./);
    const secret = lastLine(added.stdout);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const [row] = await queryRows<{ secret: string }>(database.db, sql`SELECT secret FROM webhook_endpoints`);
    expect(row!.secret).not.toContain(secret.slice('whsec_'.length));
    expect(new SecretBox(key).open(row!.secret)).toBe(secret);

    const listed = await webhooks(['list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/http:\/\/127\.0\.0\.1:9\/hooks\s+type=claim\.written chainId=8453\s+enabled/);
    expect(listed.stdout).not.toContain('whsec_');
  }, COMMANDS_TIMEOUT_MS);

  it('updates filters, disables, enables, rotates the secret, replays within retention, lists attempts and removes', async () => {
    const added = await webhooks(['add', 'http://127.0.0.1:9/hooks']);
    const id = /^Added endpoint ([0-9]+)/.exec(added.stdout)![1]!;

    const claimant = `0x${'AB'.repeat(20)}`;
    const updated = await webhooks(['update', id, '--claimant', claimant, '--type', '*']);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain(`filters:   claimant=${claimant.toLowerCase()}`);
    expect((await webhooks(['update', id])).code).toBe(2);
    expect((await webhooks(['update', id, '--from', '1'])).stderr).toContain('--from does not belong to update');

    expect((await webhooks(['disable', id])).stdout).toBe(`Disabled endpoint ${id}.\n`);
    expect((await webhooks(['list'])).stdout).toContain('disabled: disabled by the operator');
    expect((await webhooks(['enable', id])).code).toBe(0);

    const rotated = await webhooks(['rotate-secret', id]);
    expect(rotated.code).toBe(0);
    expect(lastLine(rotated.stdout)).toMatch(/^whsec_/);
    expect((await webhooks(['attempts', id])).stdout).toMatch(/rotating: {2}the previous secret signs too until /);

    // Events to replay: a campaign written, its commit's id.
    await insertCampaign(database.db);
    const [event] = await queryRows<{ id: string }>(
      database.db,
      sql`SELECT c.seq || '-' || e.id AS id FROM events AS e JOIN event_commits AS c ON c.xid = e.xid ORDER BY c.seq DESC, e.id DESC LIMIT 1`,
    );
    expect((await webhooks(['replay', id, '--from', event!.id])).stdout).toContain(`gets the events after ${event!.id} again`);
    expect((await webhooks(['replay', id, '--since', '2026-01-01T00:00:00Z'])).code).toBe(0);
    expect((await webhooks(['replay', id, '--from', 'yesterday'])).code).toBe(2);
    expect((await webhooks(['replay', id])).stderr).toContain('replay needs either --from <event-id> or --since <time>');
    await database.db.execute(sql`UPDATE event_retention SET pruned_through = 5`);
    try {
      const pruned = await webhooks(['replay', id, '--from', '2-1']);
      expect(pruned.code).toBe(1);
      expect(pruned.stderr).toContain('are no longer all kept');
    } finally {
      await database.db.execute(sql`UPDATE event_retention SET pruned_through = 0`);
    }

    const attempts = await webhooks(['attempts', id]);
    expect(attempts.stdout).toContain('No failed attempt in the last week.');

    expect((await webhooks(['rm', id])).stdout).toBe(`Removed endpoint ${id}.\n`);
    const again = await webhooks(['rm', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no webhook endpoint ${id}`);
    expect((await webhooks(['rm', 'x'])).code).toBe(2);
  }, COMMANDS_TIMEOUT_MS);
});
