// @ts-check
/**
 * Compiles src/ into dist/ only when something it is made from changed since the last build:
 * `npm start` and the tests' global set-up run it, so a restart with a current build does not
 * pay for the compiler. Plain JavaScript run by node, so that the check itself costs nothing
 * to load. `--force` compiles regardless.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Written after every successful build; what the sources are compared with. */
const STAMP = join(ROOT, 'dist', '.build-stamp');
const SOURCES = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The newest modification among a file or a directory's entries (a deleted file changes its directory's time). */
function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

/** Whether dist/ lacks a build of the current sources. */
function buildIsStale() {
  if (!existsSync(STAMP)) return true;
  const built = statSync(STAMP).mtimeMs;
  return SOURCES.some((source) => newestMtime(join(ROOT, source)) > built);
}

/**
 * Compiles when stale (or when forced), saying which it does.
 * @param {{ force: boolean, say: (line: string) => void }} options
 */
function buildIfStale({ force, say }) {
  if (!force && !buildIsStale()) {
    say('dist/ is current with src/: not compiling');
    return;
  }
  say('compiling src/ into dist/ (what changed since the last build)');
  const startedAt = Date.now();
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  // Dated at the start: a source saved while the compiler ran is newer than the stamp, so built next time.
  writeFileSync(STAMP, `${new Date(startedAt).toISOString()}\n`);
  utimesSync(STAMP, startedAt / 1000, startedAt / 1000);
}

try {
  buildIfStale({ force: process.argv.includes('--force'), say: (line) => process.stderr.write(`${line}\n`) });
} catch {
  // tsc has printed its errors.
  process.exit(1);
}
