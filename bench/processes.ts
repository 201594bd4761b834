import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import { IMAGE_ENVIRONMENT } from './image-environment.js';

/** Starting, waiting for and stopping the processes a benchmark measures. */

export async function start(command: string, args: string[], env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  const child = spawn(command, args, { env: { ...IMAGE_ENVIRONMENT, ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode}`);
    const ready = await fetch(readyUrl).then((response) => response.ok, () => false);
    if (ready) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`${command} did not become ready`);
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * The read load the live-write benchmarks set beside their writes: the campaign list and one
 * campaign in turn over `connections` keep-alive connections for `seconds`; requests a second, and
 * every request that was not a 2xx or got no answer.
 */
export async function campaignReads(base: string, campaignId: string, connections: number, seconds: number): Promise<{ rps: number; errors: number }> {
  let turn = 0;
  const paths = ['/campaigns', `/campaigns/${campaignId}`];
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[turn++ % paths.length]! }) }],
  });
  return { rps: Math.round((result['2xx'] + result.non2xx) / result.duration), errors: result.errors + result.timeouts + result.non2xx };
}
