import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SqlStatement, STATEMENT_BREAKPOINT, splitStatements } from './sql-text.js';

/**
 * One source for each database function (docs/writing-data.md, "Database functions"):
 *
 * - `src/db/sql/<name>.sql` holds the current definition of function `<name>`: one
 *   `CREATE OR REPLACE FUNCTION <name>(...)`, then a `CREATE OR REPLACE TRIGGER` for each trigger
 *   that executes it. Comments before a statement explain it; they are not part of the definition.
 * - Migrations stay the only way a definition reaches a database. Replaying them statement by
 *   statement (CREATE / CREATE OR REPLACE / DROP of functions and triggers) gives what they define
 *   today; a file whose definition differs is "pending", and `npm run db:functions` writes a new
 *   custom migration with the current text of every pending file.
 * - Two statements define the same thing when they are equal without comments and with whitespace
 *   collapsed; `test/db/function-sources.test.ts` also compares `pg_get_functiondef` on a migrated database.
 */

export const SQL_FUNCTIONS_FOLDER = fileURLToPath(new URL('../../src/db/sql', import.meta.url));

export interface FunctionDefinition {
  kind: 'function';
  name: string;
  statement: SqlStatement;
}

export interface TriggerDefinition {
  kind: 'trigger';
  name: string;
  table: string;
  /** The function the trigger executes. */
  executes: string;
  statement: SqlStatement;
}

export type Definition = FunctionDefinition | TriggerDefinition;

/** A function file: the function, then its triggers. */
export interface FunctionFile {
  path: string;
  name: string;
  function: FunctionDefinition;
  triggers: TriggerDefinition[];
}

/** What the migrations define at their end: functions by name, triggers by `table.name`. */
export interface MigratedDefinitions {
  functions: Map<string, FunctionDefinition>;
  triggers: Map<string, TriggerDefinition>;
}

const IDENT = String.raw`"?([A-Za-z_][A-Za-z0-9_]*)"?`;
const QUALIFIED = String.raw`(?:"?public"?\.)?${IDENT}`;
const CREATE_FUNCTION = new RegExp(String.raw`^CREATE (?:OR REPLACE )?FUNCTION ${QUALIFIED} ?\(`, 'i');
const CREATE_TRIGGER = new RegExp(
  String.raw`^CREATE (?:OR REPLACE )?(?:CONSTRAINT )?TRIGGER ${IDENT} .*? ON ${QUALIFIED} .*EXECUTE (?:FUNCTION|PROCEDURE) ${QUALIFIED} ?\(`,
  'i',
);
const DROP_FUNCTION = /^DROP FUNCTION (?:IF EXISTS )?(.*)$/i;
const DROP_TRIGGER = new RegExp(String.raw`^DROP TRIGGER (?:IF EXISTS )?${IDENT} ON ${QUALIFIED}`, 'i');
const DROP_TABLE = /^DROP TABLE (?:IF EXISTS )?(.*)$/i;

const triggerKey = (table: string, name: string) => `${table.toLowerCase()}.${name.toLowerCase()}`;

/** PostgreSQL has no CREATE OR REPLACE for a constraint trigger: it is dropped and created. */
const CONSTRAINT_TRIGGER = /^CREATE CONSTRAINT TRIGGER /i;

/** The statements that (re)define `definition` whether or not it exists: its own, after a DROP for a constraint trigger. */
export function replayStatements(definition: Definition): string[] {
  if (definition.kind === 'trigger' && CONSTRAINT_TRIGGER.test(definition.statement.code)) {
    return [`DROP TRIGGER IF EXISTS ${definition.name} ON ${definition.table}`, definition.statement.text];
  }
  return [definition.statement.text];
}

/** The function or trigger a statement defines, if it defines one. */
export function parseDefinition(statement: SqlStatement): Definition | undefined {
  const fn = CREATE_FUNCTION.exec(statement.code);
  if (fn) return { kind: 'function', name: fn[1]!.toLowerCase(), statement };
  const trigger = CREATE_TRIGGER.exec(statement.code);
  if (trigger) {
    return {
      kind: 'trigger',
      name: trigger[1]!.toLowerCase(),
      table: trigger[2]!.toLowerCase(),
      executes: trigger[3]!.toLowerCase(),
      statement,
    };
  }
  return undefined;
}

/** Replays every statement of the migrations in journal order and keeps the last word on each function and trigger. */
export function readMigratedDefinitions(migrationsFolder: string): MigratedDefinitions {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  const state: MigratedDefinitions = { functions: new Map(), triggers: new Map() };
  for (const { tag } of journal.entries) {
    for (const statement of splitStatements(readFileSync(join(migrationsFolder, `${tag}.sql`), 'utf8'))) {
      applyStatement(state, statement);
    }
  }
  return state;
}

function applyStatement(state: MigratedDefinitions, statement: SqlStatement): void {
  const definition = parseDefinition(statement);
  if (definition?.kind === 'function') {
    state.functions.set(definition.name, definition);
    return;
  }
  if (definition?.kind === 'trigger') {
    state.triggers.set(triggerKey(definition.table, definition.name), definition);
    return;
  }
  const dropTrigger = DROP_TRIGGER.exec(statement.code);
  if (dropTrigger) {
    state.triggers.delete(triggerKey(dropTrigger[2]!, dropTrigger[1]!));
    return;
  }
  const dropFunction = DROP_FUNCTION.exec(statement.code);
  if (dropFunction) {
    // `DROP FUNCTION a(int), b()`: the names of a comma-separated list, arguments ignored.
    for (const match of dropFunction[1]!.replace(/\([^)]*\)/g, '').matchAll(new RegExp(QUALIFIED, 'g'))) {
      const name = match[1]!.toLowerCase();
      if (!['cascade', 'restrict'].includes(name)) state.functions.delete(name);
    }
    return;
  }
  const dropTable = DROP_TABLE.exec(statement.code);
  if (dropTable) {
    for (const match of dropTable[1]!.matchAll(new RegExp(QUALIFIED, 'g'))) {
      const table = match[1]!.toLowerCase();
      for (const [key, trigger] of state.triggers) if (trigger.table === table) state.triggers.delete(key);
    }
  }
}

/** Every `src/db/sql/*.sql`, checked for the one-function-per-file shape. */
export function readFunctionFiles(folder: string = SQL_FUNCTIONS_FOLDER): FunctionFile[] {
  return readdirSync(folder)
    .filter((entry) => entry.endsWith('.sql'))
    .sort()
    .map((entry) => parseFunctionFile(join(folder, entry), readFileSync(join(folder, entry), 'utf8')));
}

export function parseFunctionFile(path: string, text: string): FunctionFile {
  const name = basename(path, '.sql');
  const fail = (problem: string): never => {
    throw new Error(`${path}: ${problem}`);
  };
  const [first, ...rest] = splitStatements(text).map((statement) => ({ statement, definition: parseDefinition(statement) }));
  if (first?.definition?.kind !== 'function') return fail(`must start with CREATE OR REPLACE FUNCTION ${name}(...)`);
  if (first.definition.name !== name) return fail(`defines function ${first.definition.name}; the file must be named after it`);
  if (!/^CREATE OR REPLACE /i.test(first.statement.code)) return fail('use CREATE OR REPLACE FUNCTION, so that a migration can replay it');
  const triggers = rest.map(({ statement, definition }) => {
    if (definition?.kind !== 'trigger') return fail(`only CREATE OR REPLACE TRIGGER may follow the function: ${statement.code.slice(0, 60)}`);
    if (definition.executes !== name) return fail(`trigger ${definition.name} executes ${definition.executes}, not ${name}`);
    if (!/^CREATE OR REPLACE /i.test(statement.code) && !CONSTRAINT_TRIGGER.test(statement.code)) {
      return fail(`use CREATE OR REPLACE TRIGGER (or CREATE CONSTRAINT TRIGGER) for ${definition.name}`);
    }
    return definition;
  });
  return { path, name, function: first.definition, triggers };
}

/** What a new migration must contain for the migrations to define exactly what the files say. */
export interface PendingChanges {
  /** Files whose function or triggers differ from the migrations', in an order that creates callees first. */
  files: FunctionFile[];
  /** Triggers the migrations define that no file does any more (on a pending file's function, or an orphan's). */
  droppedTriggers: TriggerDefinition[];
  /** Functions the migrations define that have no file. */
  droppedFunctions: FunctionDefinition[];
  /** Pending functions whose arguments or result type changed: CREATE OR REPLACE cannot do that, so they are dropped first. */
  recreatedFunctions: FunctionDefinition[];
}

export function pendingChanges(files: FunctionFile[], migrated: MigratedDefinitions): PendingChanges {
  const fileTriggers = new Set(files.flatMap((file) => file.triggers.map((t) => triggerKey(t.table, t.name))));
  const fileNames = new Set(files.map((file) => file.name));
  const pending = files.filter((file) => {
    const current = migrated.functions.get(file.name);
    if (current?.statement.code !== file.function.statement.code) return true;
    const triggersNow = [...migrated.triggers.values()].filter((t) => t.executes === file.name);
    if (triggersNow.length !== file.triggers.length) return true;
    return file.triggers.some((t) => migrated.triggers.get(triggerKey(t.table, t.name))?.statement.code !== t.statement.code);
  });
  const droppedFunctions = [...migrated.functions.values()].filter((fn) => !fileNames.has(fn.name));
  const droppedTriggers = [...migrated.triggers.entries()]
    .filter(([key]) => !fileTriggers.has(key))
    .map(([, trigger]) => trigger);
  const recreatedFunctions = pending
    .map((file) => migrated.functions.get(file.name))
    .filter((old): old is FunctionDefinition => old !== undefined)
    .filter((old) => signature(old) !== signature(files.find((file) => file.name === old.name)!.function));
  return { files: calleesFirst(pending), droppedTriggers, droppedFunctions, recreatedFunctions };
}

export function hasPendingChanges(changes: PendingChanges): boolean {
  return changes.files.length + changes.droppedTriggers.length + changes.droppedFunctions.length > 0;
}

/** One line per pending change, for the check's failure message. */
export function describePendingChanges(changes: PendingChanges): string[] {
  return [
    ...changes.files.map((file) => `${file.name}: src/db/sql/${file.name}.sql differs from what the migrations define`),
    ...changes.droppedTriggers.map((t) => `trigger ${t.name} on ${t.table}: defined by the migrations, in no file`),
    ...changes.droppedFunctions.map((fn) => `${fn.name}: defined by the migrations, has no file in src/db/sql/`),
  ];
}

/** The body of the custom migration that brings the database to the files. */
export function renderMigration(changes: PendingChanges, relativeFolder = 'src/db/sql'): string {
  const statements: string[] = [];
  for (const trigger of changes.droppedTriggers) statements.push(`DROP TRIGGER IF EXISTS ${trigger.name} ON ${trigger.table};`);
  for (const fn of [...changes.droppedFunctions, ...changes.recreatedFunctions]) {
    // CASCADE takes the function's triggers with it; a recreated function's file creates them again.
    statements.push(`DROP FUNCTION IF EXISTS ${fn.name}(${argumentTypes(fn)}) CASCADE;`);
  }
  for (const file of changes.files) {
    const [first, ...others] = [file.function, ...file.triggers].flatMap((definition) => replayStatements(definition).map((text) => `${text};`));
    statements.push(`-- ${relativeFolder}/${file.name}.sql\n${first}`, ...others);
  }
  return [
    '-- Custom SQL migration file, put your code below! --',
    `-- Generated by \`npm run db:functions\` from ${relativeFolder}/: the current definition of each function (with its`,
    '-- triggers) that differed from what the earlier migrations define. Never edit it: change the file and generate again.',
    statements.join(`\n${STATEMENT_BREAKPOINT}\n`),
    '',
  ].join('\n');
}

/** Arguments and result type: what CREATE OR REPLACE FUNCTION cannot change. */
function signature(fn: FunctionDefinition): string {
  const code = fn.statement.code;
  const returns = /\)\s*RETURNS\s+(.*?)\s+(?:LANGUAGE|AS|SET|STABLE|IMMUTABLE|VOLATILE|PARALLEL|STRICT|SECURITY|COST|ROWS|CALLED|LEAKPROOF|WINDOW)\b/i.exec(code);
  return `${argumentList(fn)} -> ${(returns?.[1] ?? '').toLowerCase()}`;
}

function argumentList(fn: FunctionDefinition): string {
  const code = fn.statement.code;
  const open = code.indexOf('(');
  let depth = 0;
  for (let index = open; index < code.length; index++) {
    if (code[index] === '(') depth++;
    else if (code[index] === ')' && --depth === 0) return code.slice(open + 1, index).trim().toLowerCase();
  }
  return '';
}

/**
 * `keys integer[], t tokens` -> `integer[], tokens`: what DROP FUNCTION needs to name an overload.
 * OUT parameters are left out: they are part of the result, not of the function's identity.
 */
function argumentTypes(fn: FunctionDefinition): string {
  const list = argumentList(fn);
  if (list === '') return '';
  return list
    .split(',')
    .map((argument) => argument.replace(/\s+default\s+.*$/i, '').replace(/=.*$/, '').trim())
    .filter((argument) => !/^out\s/i.test(argument))
    .map((argument) => {
      const words = argument.replace(/^(in|out|inout|variadic)\s+/i, '').split(/\s+/);
      return words.length > 1 ? words.slice(1).join(' ') : words[0];
    })
    .join(', ');
}

/** Functions called by other pending functions come first (SQL functions are checked against their callees). */
function calleesFirst(files: FunctionFile[]): FunctionFile[] {
  const byName = new Map(files.map((file) => [file.name, file]));
  const ordered: FunctionFile[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (file: FunctionFile) => {
    if (state.has(file.name)) return; // done, or a cycle (PL/pgSQL bodies are not checked at creation)
    state.set(file.name, 'visiting');
    for (const other of byName.values()) {
      if (other !== file && new RegExp(String.raw`\b${other.name}\s*\(`, 'i').test(bodyOf(file.function))) visit(other);
    }
    state.set(file.name, 'done');
    ordered.push(file);
  };
  for (const file of files) visit(file);
  return ordered;
}

/** The text after the argument list, without line comments: a function named in a comment is not a call. */
function bodyOf(fn: FunctionDefinition): string {
  const text = fn.statement.text.replace(/--[^\n]*/g, '');
  return text.slice(text.indexOf(')'));
}
