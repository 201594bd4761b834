import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkSession, DatabaseHandle } from '../../src/db/client.js';
import {
  replayStatements,
  describePendingChanges,
  pendingChanges,
  readFunctionFiles,
  readMigratedDefinitions,
} from '../../src/db/function-sources.js';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { normaliseWhitespace } from '../../src/db/sql-text.js';
import { createTestDatabase } from '../helpers/database.js';

/**
 * src/db/sql/ is the one source of every database function and trigger: the migrations define
 * exactly what the files say, and so does a freshly migrated database.
 */
const files = readFunctionFiles();

describe('function files and migrations', () => {
  it('the latest migration statement defining each function and trigger equals its file', () => {
    const migrated = readMigratedDefinitions(MIGRATIONS_FOLDER);
    expect(describePendingChanges(pendingChanges(files, migrated))).toEqual([]);
    for (const file of files) {
      expect(migrated.functions.get(file.name)?.statement.code, file.path).toBe(file.function.statement.code);
      for (const trigger of file.triggers) {
        expect(migrated.triggers.get(`${trigger.table}.${trigger.name}`)?.statement.code, `${file.path}: ${trigger.name}`).toBe(
          trigger.statement.code,
        );
      }
    }
  });
});

interface FunctionRow {
  name: string;
  definition: string;
  source: string;
}
interface TriggerRow {
  name: string;
  table: string;
  definition: string;
}

describe('a freshly migrated database', () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.close());

  type Query = BulkSession['query'];
  const readFunctions = (query: Query) =>
    query<FunctionRow>(
      sql.raw(`SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition, p.prosrc AS source
                 FROM pg_proc p
                WHERE p.pronamespace = 'public'::regnamespace
                  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
                ORDER BY 1`),
    );
  const readTriggers = (query: Query) =>
    query<TriggerRow>(
      sql.raw(`SELECT t.tgname AS name, c.relname AS table, pg_get_triggerdef(t.oid) AS definition
                 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace
                ORDER BY 2, 1`),
    );

  it('has exactly the functions and triggers of the files, and pg_get_functiondef is unchanged by running the files', async () => {
    await database.bulkTransaction(async (session) => {
      const query: Query = (statement) => session.query(statement);
      const functions = await readFunctions(query);
      const triggers = await readTriggers(query);
      expect(functions.map((row) => row.name)).toEqual(files.map((file) => file.name).sort());
      expect(triggers.map((row) => `${row.table}.${row.name}`)).toEqual(
        files.flatMap((file) => file.triggers.map((t) => `${t.table}.${t.name}`)).sort(),
      );

      // The body PostgreSQL stores is the file's, to the character but for layout.
      for (const file of files) {
        const body = /\$(\w*)\$([\s\S]*)\$\1\$/.exec(file.function.statement.text)?.[2] ?? '';
        const stored = functions.find((row) => row.name === file.name)!;
        expect(normaliseWhitespace(stored.source), file.path).toBe(normaliseWhitespace(body));
      }

      // Executing the files over the migrated definitions leaves PostgreSQL's own rendering of every
      // function and trigger as it was: same arguments, result, language, settings and body.
      for (const file of files) {
        for (const definition of [file.function, ...file.triggers]) {
          for (const statement of replayStatements(definition)) await session.query(sql.raw(statement));
        }
      }
      expect(await readFunctions(query)).toEqual(functions);
      expect(await readTriggers(query)).toEqual(triggers);
    });
  });
});
