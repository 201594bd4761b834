import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migratePglite, migratePostgres } from '../src/db/migrate.js';
import { type TestDatabaseServer, withDatabase } from './helpers/test-server.js';

/**
 * Finds the PostgreSQL the tests run against, in the design's order: TEST_DATABASE_URL; a
 * testcontainers PostgreSQL when a container runtime answers; otherwise embedded PGlite.
 * It migrates one template database; every test file clones its own database from it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // CI runs the suite on two Node versions; the log says which one this run proves.
  console.log(`tests run on Node ${process.version} (${process.execPath})`);
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    console.log(`tests use PostgreSQL from TEST_DATABASE_URL (${new URL(url).host})`);
    return usePostgres(project, url, async () => undefined);
  }

  const container = await startContainer();
  if (container) {
    console.log('tests use a PostgreSQL container started by testcontainers');
    return usePostgres(project, container.getConnectionUri(), async () => {
      await container.stop();
    });
  }

  console.log('tests use embedded PGlite (no TEST_DATABASE_URL, no container runtime answered)');
  const directory = await mkdtemp(join(tmpdir(), 'campaign-tests-'));
  const template = new PGlite();
  await migratePglite(template);
  const dumpPath = join(directory, 'template.tar');
  await writeFile(dumpPath, Buffer.from(await (await template.dumpDataDir('none')).arrayBuffer()));
  await template.close();
  project.provide('testDatabase', { kind: 'pglite', dumpPath } satisfies TestDatabaseServer);
  return () => rm(directory, { recursive: true, force: true });
}

async function usePostgres(project: TestProject, url: string, stopServer: () => Promise<void>) {
  const templateName = `campaign_test_template_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${templateName}"`);
  const templateUrl = withDatabase(url, templateName);
  await migratePostgres(templateUrl, 5000);
  project.provide('testDatabase', { kind: 'postgres', adminUrl: url, templateName } satisfies TestDatabaseServer);

  return async () => {
    // Test files drop their own databases; sweep any a crashed worker left behind, then the template.
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${templateName.replace('template', 'file')}%`],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS "${templateName}" WITH (FORCE)`);
    await admin.end();
    await stopServer();
  };
}

/** A container runtime may be absent (as on the CI machine); never let probing it hang the run. */
async function startContainer() {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await withTimeout(getContainerRuntimeClient(), 5000);
  } catch {
    return undefined;
  }
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  return new PostgreSqlContainer('postgres:16-alpine').start();
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabase: TestDatabaseServer;
  }
}
