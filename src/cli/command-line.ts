import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ConfigError } from '../config.js';
import { EmbeddedDatabaseInUse } from '../db/pglite-lock.js';

/**
 * What every command shares: `--help` prints the usage and exits 0 having done nothing else; an
 * unknown flag or a misused one exits 2 naming it, before any setting is read or database opened;
 * a failure exits 1.
 */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** The command line was wrong: the message, then the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The command could not do its work for a reason its message explains in full: no stack, no prefix. */
export class CommandError extends Error {
  override name = 'CommandError';
}

/**
 * parseArgs in strict mode with `--help`/`-h` added. Returns null after printing `usage` for
 * `--help`; throws UsageError for an unknown option, a missing value or an unexpected argument.
 */
export function parseCommandLine<T extends ParseArgsConfig>(usage: string, config: T, args = process.argv.slice(2)) {
  const options = { ...config.options, help: { type: 'boolean', short: 'h' } } as const;
  let parsed;
  try {
    parsed = parseArgs({ ...config, options, args, strict: true });
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }));
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    return null;
  }
  return parsed as unknown as ReturnType<typeof parseArgs<T>>;
}

/** parseArgs's own words, less its advice on `--` for an unknown option (rarely what was meant). */
function describeParseError(error: Error & { code?: string }): string {
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(error.message)?.[1];
    if (option) return `unknown option ${option}`;
  }
  return error.message;
}

/**
 * Runs a command's main and turns what it throws into the exit code and one message on stderr:
 * usage errors with the usage (2); configuration errors, a busy embedded database and the command's
 * own errors as they are (1); anything else after `failure` (1), with its stack when `stack` is set.
 */
export function runCommand(usage: string, failure: string, main: () => Promise<void>, { stack = false } = {}): void {
  main().catch((error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${usage}`);
      process.exitCode = EXIT_USAGE;
      return;
    }
    if (error instanceof ConfigError || error instanceof CommandError || error instanceof EmbeddedDatabaseInUse) console.error(error.message);
    else console.error(`${failure}: ${stack ? ((error as Error).stack ?? String(error)) : (error as Error).message}`);
    process.exitCode = EXIT_FAILURE;
  });
}
