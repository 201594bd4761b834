import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * docker-compose.yml as Docker Compose reads it, before it starts anything: the YAML with its
 * anchors and merge keys (`<<`) resolved, every string value interpolated from the variables
 * (compose-go's template syntax), and the services a set of profiles makes active.
 */

export interface ComposeService {
  image?: string;
  build?: string | { context: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  expose?: string[];
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  [key: string]: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  [key: string]: unknown;
}

/** `KEY=VALUE` lines of an env file; `#` lines and blank lines skipped, as compose reads `.env`. */
export function readEnvFile(path: string): Map<string, string> {
  const variables = new Map<string, string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const text = line.trim();
    if (text === '' || text.startsWith('#')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(text);
    if (!match) throw new Error(`${path}: not KEY=VALUE: ${line}`);
    variables.set(match[1]!, match[2]!);
  }
  return variables;
}

/** The text after `${` up to its matching `}`, or throws: compose refuses an unclosed one too. */
function braced(text: string, start: number): { inner: string; end: number } {
  let depth = 1;
  for (let index = start; index < text.length; index += 1) {
    if (text[index] === '{') depth += 1;
    else if (text[index] === '}' && (depth -= 1) === 0) return { inner: text.slice(start, index), end: index + 1 };
  }
  throw new Error(`invalid interpolation format: ${JSON.stringify(text)}`);
}

/**
 * One string as compose interpolates it: `$$` is `$`; `$VAR` and `${VAR}` its value (empty when
 * unset); `${VAR:-default}` the default when unset or empty, `${VAR-default}` only when unset;
 * `${VAR:?error}` / `${VAR?error}` refuse the whole file when unset (or empty); `${VAR:+other}` /
 * `${VAR+other}` give `other` when set (and not empty). A default is interpolated in turn.
 * `used` collects every variable read, with the default the text gives it (`undefined` for none).
 */
export function interpolate(text: string, variables: ReadonlyMap<string, string>, used?: Map<string, string | undefined>): string {
  let result = '';
  for (let index = 0; index < text.length; ) {
    const char = text[index]!;
    if (char !== '$') {
      result += char;
      index += 1;
      continue;
    }
    const next = text[index + 1];
    if (next === '$') {
      result += '$';
      index += 2;
      continue;
    }
    if (next === '{') {
      const { inner, end } = braced(text, index + 2);
      const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/.exec(inner);
      if (!match) throw new Error(`invalid interpolation format: ${JSON.stringify(text)}`);
      const [, name, operator, argument = ''] = match as unknown as [string, string, string | undefined, string | undefined];
      const value = variables.get(name);
      const set = value !== undefined && (value !== '' || operator === undefined || !operator.startsWith(':'));
      if (used && !used.has(name)) used.set(name, operator?.endsWith('-') ? argument : undefined);
      switch (operator?.slice(-1)) {
        case undefined:
          result += value ?? '';
          break;
        case '-':
          result += set ? value : interpolate(argument, variables, used);
          break;
        case '?':
          if (!set) throw new Error(`required variable ${name} is missing a value${argument ? `: ${argument}` : ''}`);
          result += value;
          break;
        case '+':
          result += set ? interpolate(argument, variables, used) : '';
          break;
      }
      index = end;
      continue;
    }
    const named = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(index + 1))?.[0];
    if (named) {
      if (used && !used.has(named)) used.set(named, undefined);
      result += variables.get(named) ?? '';
      index += 1 + named.length;
      continue;
    }
    // A `$` that starts no substitution stays as it is.
    result += '$';
    index += 1;
  }
  return result;
}

/** Every string value interpolated; mapping keys are not (compose interpolates values only). */
export function interpolateValues<T>(value: T, variables: ReadonlyMap<string, string>, used?: Map<string, string | undefined>): T {
  if (typeof value === 'string') return interpolate(value, variables, used) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => interpolateValues(item, variables, used)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateValues(item, variables, used)])) as T;
  }
  return value;
}

/** The file's YAML with its anchors and merge keys resolved, nothing interpolated. */
export function readComposeYaml(path: string): ComposeFile {
  return parse(readFileSync(path, 'utf8'), { merge: true }) as ComposeFile;
}

/** What compose loads: the YAML resolved, then interpolated from `variables`. */
export function loadCompose(path: string, variables: ReadonlyMap<string, string>, used?: Map<string, string | undefined>): ComposeFile {
  return interpolateValues(readComposeYaml(path), variables, used);
}

/** Every profile some service names. */
export function profilesOf(file: ComposeFile): string[] {
  return [...new Set(Object.values(file.services).flatMap((service) => service.profiles ?? []))].sort();
}

/**
 * The file as compose runs it with `--profile` for each of `profiles`: services without profiles,
 * and those naming one of them.
 */
export function withProfiles(file: ComposeFile, profiles: readonly string[]): ComposeFile {
  const services = Object.fromEntries(
    Object.entries(file.services).filter(([, service]) => service.profiles === undefined || service.profiles.some((profile) => profiles.includes(profile))),
  );
  return { ...file, services };
}
