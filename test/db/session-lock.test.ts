import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createSessionLock } from '../../src/db/session-lock.js';
import { priceJobLock } from '../../src/price-job/from-config.js';

/**
 * The session-level advisory lock that lets one process per database run the price job's rounds: one
 * holder at a time, released with its session, taken again by whoever asks next. A lock needs
 * PostgreSQL sessions of its own (the embedded database has one process, and no such lock).
 */
const server = inject('testDatabase');

describe('a session lock', () => {
  if (server.kind === 'pglite') {
    // The embedded database admits one process at a time (its lock file), so the price job takes no lock there.
    it('is not taken on the embedded database, which one process at a time opens', () => {
      expect(priceJobLock(loadConfig({ PGLITE_DATA_DIR: 'memory://' }), { warn: () => undefined })).toBeNull();
    });
    return;
  }
  const url = server.adminUrl;

  it('has one holder; a lost session loses it, and the next to ask takes it', async () => {
    // A key of this run's own: test files run side by side on one server.
    const key = [731_284_159, process.pid] as const;
    const lock = (name: string) => createSessionLock({ url, key, connectTimeoutMs: 5000, applicationName: name });
    const first = lock(`session-lock-test-a-${process.pid}`);
    const second = lock(`session-lock-test-b-${process.pid}`);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      expect(await first.tryHold()).toBe(true);
      expect(await first.tryHold()).toBe(true);
      expect(await second.tryHold()).toBe(false);

      // The first's session ends under it (a failover, pg_terminate_backend): PostgreSQL releases its lock.
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [`session-lock-test-a-${process.pid}`]);
      await expect.poll(() => second.tryHold(), { timeout: 5000 }).toBe(true);
      // The first learns it lost the session (at the latest when it asks), and then finds the lock taken.
      await expect.poll(() => first.tryHold().catch(() => 'lost'), { timeout: 5000 }).toBe(false);

      await second.close();
      expect(await first.tryHold()).toBe(true);
      await first.close();
      const { rows } = await admin.query<{ count: string }>("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2", [...key]);
      expect(rows[0]?.count).toBe('0');
    } finally {
      await first.close();
      await second.close();
      await admin.end();
    }
  });
});
