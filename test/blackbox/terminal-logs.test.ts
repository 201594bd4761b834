import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort, START_WITHIN_MS } from './helpers/server-process.js';

/**
 * What a newcomer sees: `npm start` runs `node dist/server.js` on their terminal, and the logs must be
 * readable lines there, not JSON. util-linux `script` gives the built server a pseudo-terminal as
 * stdout; the same command with NODE_ENV=production (the image) must stay JSON. (Not on a terminal,
 * every other black-box test reads the server's JSON lines.)
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = '/usr/bin/script';
const hasScript = existsSync(SCRIPT);
if (!hasScript) console.log(`terminal logs test skipped: no ${SCRIPT} (apt-get install bsdutils)`);

/**
 * The server's output on a pseudo-terminal, from start until it logs `until` (`ready`). Gives up
 * after `withinMs`, saying so: on the embedded database under a loaded machine, preparing the demo
 * data alone can take tens of seconds.
 */
async function outputOnTerminal(env: Record<string, string>, until = /\bready\b/, withinMs = START_WITHIN_MS): Promise<string> {
  const child = spawn(SCRIPT, ['--quiet', '--return', '--flush', '--command', `${process.execPath} dist/server.js`, '/dev/null'], {
    cwd: ROOT,
    // Its own process group, so that the shell `script` starts and the server end together.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      PGLITE_DATA_DIR: 'memory://',
      DEMO_DATA: 'false',
      ...env,
    },
  });
  let output = '';
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  let reached = false;
  const deadline = setTimeout(kill, withinMs);
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    // eslint-disable-next-line no-control-regex
    if (until.test(output.replace(/\u001b\[[0-9;]*m/g, ''))) {
      reached = true;
      kill();
    }
  });
  await ended;
  clearTimeout(deadline);
  if (!reached) throw new Error(`the server did not log ${String(until)} within ${withinMs} ms; it printed:\n${output}`);
  // The terminal's own line endings and colours are not the server's.
  // eslint-disable-next-line no-control-regex
  return output.replace(/\r/g, '').replace(/\u001b\[[0-9;]*m/g, '');
}

describe.skipIf(!hasScript)('logs of the built server on a terminal', () => {
  it('are readable lines: time, level, message, fields below', async () => {
    const output = await outputOnTerminal({});
    expect(output).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: database opened\n {4}database: "embedded PGlite \(in memory\)"$/m);
    expect(output).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: campaign service listening on http:\/\/127\.0\.0\.1:\d+; API docs at http:\/\/127\.0\.0\.1:\d+\/docs /m);
    expect(output).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: ready$/m);
    expect(output).not.toMatch(/^\{"level"/m);
    // Every line is the logger's: a time and level, or a field below one.
    expect(output.split('\n').filter((line) => line !== '' && !/^(\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+: | {4})/.test(line))).toEqual([]);
  }, START_WITHIN_MS + 10_000);

  it('stay JSON with NODE_ENV=production, as in the image: the start banner and the demo token too', async () => {
    const output = await outputOnTerminal({ NODE_ENV: 'production', DEMO_DATA: 'true' }, /demo token for the staging routes[^\n]*\n/, 100_000);
    const lines = output.split('\n').filter((line) => line !== '');
    expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
    const entries = lines.map((line) => JSON.parse(line) as { msg: string; demoToken?: string });
    expect(entries.map(({ msg }) => msg)).toEqual(expect.arrayContaining(['database opened', 'ready']));
    expect(entries.map(({ msg }) => msg)).toContainEqual(expect.stringMatching(/^campaign service listening on http:\/\/127\.0\.0\.1:\d+; API docs at /));
    expect(entries.find((entry) => entry.demoToken)?.demoToken).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    expect(output).not.toMatch(/INFO: ready/);
  }, 120_000);
});
