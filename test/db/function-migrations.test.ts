import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FunctionFile,
  parseFunctionFile,
  pendingChanges,
  readMigratedDefinitions,
  renderMigration,
} from '../../src/db/function-sources.js';
import { splitStatements } from '../../src/db/sql-text.js';

/** How `npm run db:functions` decides what a new migration holds, on made-up migrations and files. */

let folder: string | undefined;
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

function migrations(...scripts: string[]) {
  folder = mkdtempSync(join(tmpdir(), 'function-migrations-'));
  mkdirSync(join(folder, 'meta'));
  const entries = scripts.map((script, index) => {
    const tag = `000${index}_m`;
    writeFileSync(join(folder!, `${tag}.sql`), script);
    return { idx: index, tag };
  });
  writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ entries }));
  return readMigratedDefinitions(folder);
}

const file = (name: string, text: string): FunctionFile => parseFunctionFile(`src/db/sql/${name}.sql`, text);

const F1 = `CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;`;
const T1 = `CREATE TRIGGER t AFTER INSERT ON claims FOR EACH STATEMENT EXECUTE FUNCTION f();`;

describe('splitting SQL', () => {
  it('splits on semicolons outside strings, identifiers, dollar quotes and comments', () => {
    const statements = splitStatements(
      `-- lead; comment\nSELECT 'a;b', "c;d";\n/* x; */ CREATE FUNCTION g() RETURNS int AS $body$ SELECT 1; -- ;\n$body$ LANGUAGE sql;\nSELECT $1`,
    );
    expect(statements.map((s) => s.code)).toEqual([
      `SELECT 'a;b', "c;d"`,
      'CREATE FUNCTION g() RETURNS int AS $body$ SELECT 1; -- ; $body$ LANGUAGE sql',
      'SELECT $1',
    ]);
    expect(statements[0]!.text.startsWith('-- lead; comment')).toBe(true);
  });
});

describe('pending function changes', () => {
  it('nothing when the files say what the migrations say, layout and comments aside', () => {
    const migrated = migrations(`${F1}\n--> statement-breakpoint\n${T1}`);
    const files = [
      file('f', `-- why f exists\nCREATE OR REPLACE FUNCTION f()\n  RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;\n${T1.replace('CREATE', 'CREATE OR REPLACE')}`),
    ];
    // CREATE vs CREATE OR REPLACE differs: the files' form is what a generated migration replays.
    const first = pendingChanges(files, migrated);
    expect(first.files.map((f) => f.name)).toEqual(['f']);
    const again = migrations(`${F1}\n--> statement-breakpoint\n${T1}`, renderMigration(first));
    expect(pendingChanges(files, again)).toEqual({ files: [], droppedTriggers: [], droppedFunctions: [], recreatedFunctions: [] });
  });

  it('a changed body, a new trigger and a removed trigger are pending; the latest definition wins', () => {
    const migrated = migrations(
      `${F1}\n--> statement-breakpoint\n${T1}`,
      `CREATE OR REPLACE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;\n--> statement-breakpoint\n` +
        `CREATE OR REPLACE TRIGGER t AFTER INSERT ON claims FOR EACH STATEMENT EXECUTE FUNCTION f();`,
    );
    const changedBody = file('f', `CREATE OR REPLACE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; RETURN NULL; END $$;
      CREATE OR REPLACE TRIGGER t AFTER INSERT ON claims FOR EACH STATEMENT EXECUTE FUNCTION f();`);
    expect(pendingChanges([changedBody], migrated).files.map((f) => f.name)).toEqual(['f']);

    const otherTrigger = file('f', `CREATE OR REPLACE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE OR REPLACE TRIGGER u AFTER DELETE ON claims FOR EACH STATEMENT EXECUTE FUNCTION f();`);
    const changes = pendingChanges([otherTrigger], migrated);
    expect(changes.files.map((f) => f.name)).toEqual(['f']);
    expect(changes.droppedTriggers.map((t) => `${t.table}.${t.name}`)).toEqual(['claims.t']);
    const rendered = renderMigration(changes);
    expect(rendered).toContain('DROP TRIGGER IF EXISTS t ON claims;');
    expect(rendered).toContain('CREATE OR REPLACE TRIGGER u AFTER DELETE ON claims');
    expect(pendingChanges([otherTrigger], migrations(`${F1}\n--> statement-breakpoint\n${T1}`, rendered)).files).toEqual([]);
  });

  it('drops a function no file defines, and a dropped function is no longer defined', () => {
    const migrated = migrations(`${F1}\n--> statement-breakpoint\n${T1}\n--> statement-breakpoint\nCREATE FUNCTION old(a integer, b text) RETURNS void LANGUAGE sql AS $$ SELECT 1 $$;`);
    const files = [file('f', `CREATE OR REPLACE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;`)];
    const changes = pendingChanges(files, migrated);
    expect(changes.droppedFunctions.map((fn) => fn.name)).toEqual(['old']);
    expect(renderMigration(changes)).toContain('DROP FUNCTION IF EXISTS old(integer, text) CASCADE;');
    const after = migrations(`CREATE FUNCTION old() RETURNS void LANGUAGE sql AS $$ SELECT 1 $$;`, 'DROP FUNCTION old();');
    expect(after.functions.size).toBe(0);
  });

  it('recreates a function whose arguments or result type changed, and orders callees first', () => {
    const migrated = migrations(`CREATE FUNCTION b(x integer) RETURNS integer LANGUAGE sql AS $$ SELECT x $$;`);
    const files = [
      file('a', `CREATE OR REPLACE FUNCTION a() RETURNS bigint LANGUAGE sql AS $$ SELECT b(1) $$;`),
      file('b', `CREATE OR REPLACE FUNCTION b(x bigint) RETURNS bigint LANGUAGE sql AS $$ SELECT x $$;`),
    ];
    const changes = pendingChanges(files, migrated);
    expect(changes.files.map((f) => f.name)).toEqual(['b', 'a']);
    expect(changes.recreatedFunctions.map((fn) => fn.name)).toEqual(['b']);
    expect(renderMigration(changes)).toContain('DROP FUNCTION IF EXISTS b(integer) CASCADE;');
  });

  it('refuses a file that is not one function named after it followed by its triggers', () => {
    expect(() => file('g', F1.replace('CREATE', 'CREATE OR REPLACE'))).toThrow(/named after it/);
    expect(() => file('f', F1)).toThrow(/CREATE OR REPLACE FUNCTION/);
    expect(() => file('f', `${F1.replace('CREATE', 'CREATE OR REPLACE')} SELECT 1;`)).toThrow(/only CREATE OR REPLACE TRIGGER/);
    expect(() =>
      file('f', `${F1.replace('CREATE', 'CREATE OR REPLACE')} CREATE OR REPLACE TRIGGER t AFTER INSERT ON x FOR EACH ROW EXECUTE FUNCTION h();`),
    ).toThrow(/executes h/);
  });
});
