import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The black-box tests run the production build (`node dist/server.js`): scripts/build-if-stale.js
 * compiles it when anything it is made from changed since the last build (as `npm start` does), so
 * that they never test stale code.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build-if-stale.js'], { cwd: root, stdio: 'inherit' });
}
