import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The black-box tests run the production build (`node dist/server.js`). Build it when it is
 * missing or older than any source it is made from, so that they never test stale code.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILT = join(ROOT, 'dist', 'server.js');
const SOURCES = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

export default function setup(): void {
  const stale = !existsSync(BUILT) || SOURCES.some((source) => newestMtime(join(ROOT, source)) > statSync(BUILT).mtimeMs);
  if (!stale) return;
  console.log('building dist/ for the black-box tests (npm run build)');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
