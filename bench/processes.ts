import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
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
