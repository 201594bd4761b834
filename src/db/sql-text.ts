/**
 * Just enough of PostgreSQL's lexical rules to split a script into statements and to compare two
 * statements without their comments and layout: quoted strings, quoted identifiers, dollar quotes,
 * line and block comments. Function bodies are dollar-quoted, so a `;` or `--` inside one stays put.
 */

/** One statement of a script: its text as written (leading comments included) and its code alone. */
export interface SqlStatement {
  /** As written, from the end of the previous statement, comments included, without the `;`. */
  text: string;
  /** Without comments outside quotes and with every run of whitespace made one space: what PostgreSQL executes. */
  code: string;
}

/** drizzle's separator between the statements of a migration file. */
export const STATEMENT_BREAKPOINT = '--> statement-breakpoint';

export function splitStatements(script: string): SqlStatement[] {
  const statements: SqlStatement[] = [];
  let start = 0;
  let code = '';
  let at = 0;
  const flush = (end: number) => {
    const text = script.slice(start, end).trim();
    const normalised = normaliseWhitespace(code);
    if (normalised !== '') statements.push({ text, code: normalised });
    start = end + 1;
    code = '';
  };
  while (at < script.length) {
    const char = script[at]!;
    const next = script[at + 1];
    if (char === '-' && next === '-') {
      const end = script.indexOf('\n', at);
      at = end === -1 ? script.length : end;
      code += ' ';
    } else if (char === '/' && next === '*') {
      const end = script.indexOf('*/', at + 2);
      at = end === -1 ? script.length : end + 2;
      code += ' ';
    } else if (char === "'" || char === '"') {
      const end = closingQuote(script, at, char);
      code += script.slice(at, end);
      at = end;
    } else if (char === '$' && isDollarQuoteStart(script, at)) {
      const tag = /^\$[A-Za-z_]*\$/.exec(script.slice(at))![0];
      const close = script.indexOf(tag, at + tag.length);
      const end = close === -1 ? script.length : close + tag.length;
      code += script.slice(at, end);
      at = end;
    } else if (char === ';') {
      flush(at);
      at++;
    } else {
      code += char;
      at++;
    }
  }
  flush(script.length);
  return statements;
}

/** Whitespace runs become one space, also inside quotes and bodies: layout is not part of a definition. */
export function normaliseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Index just after the quote that closes the one at `at` (a doubled quote is an escaped one). */
function closingQuote(script: string, at: number, quote: string): number {
  let index = at + 1;
  while (index < script.length) {
    if (script[index] === quote) {
      if (script[index + 1] === quote) index += 2;
      else return index + 1;
    } else index++;
  }
  return script.length;
}

/** `$$` or `$tag$`, but not a parameter such as `$1` nor a `$` inside an identifier. */
function isDollarQuoteStart(script: string, at: number): boolean {
  const before = at > 0 ? script[at - 1]! : ' ';
  if (/[A-Za-z0-9_]/.test(before)) return false;
  return /^\$[A-Za-z_]*\$/.test(script.slice(at));
}
