import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * Which cores the load generator and the servers under test run on.
 *
 * autocannon is one JavaScript thread that takes half a core or more at these request rates, and
 * the service is one thread that takes a whole one. Left to the scheduler on a 2-core machine, the
 * load generator and the claim writer's thread land on the server's core, and every response the
 * server writes wakes the load generator, which may preempt the server on the spot: what the table
 * then shows is partly the load generator's own cost (unpinned, the server's main thread waits
 * for a core a fifth of the time while claims are written: /proc/<pid>/task/<pid>/schedstat). A
 * real deployment never shares a core with its clients.
 *
 * `auto` (the default, on 2 cores or more): the benchmark's own process (autocannon and the claim
 * writer's thread) on core 0, the servers (the service, the ceiling and the baseline) on the rest.
 * PostgreSQL is left to the scheduler on every core: this machine's cores are all there is, and it
 * is the database a deployment shares with its writers.
 */
export interface Placement {
  /** The cores of the benchmark's own process, or undefined to leave it where it was started. */
  loadCpus?: string;
  /** The cores of the servers, or undefined to leave them to the scheduler. */
  serverCpus?: string;
  /** One line for the log and the results file. */
  description: string;
}

export function choosePlacement(pin: string, serverCpus: string | undefined): Placement {
  if (serverCpus !== undefined) {
    return { serverCpus, description: `servers on cores ${serverCpus} (--server-cpus); the benchmark where it was started` };
  }
  if (pin === 'off') return { description: 'not pinned (--pin off): every process on every core' };
  if (pin !== 'auto') throw new Error(`--pin must be auto or off, not ${pin}`);
  const cores = cpus().length;
  if (cores < 2) return { description: 'not pinned: one core' };
  if (!hasTaskset()) return { description: 'not pinned: taskset (util-linux) not found' };
  const servers = cores === 2 ? '1' : `1-${cores - 1}`;
  return { loadCpus: '0', serverCpus: servers, description: `load generator on core 0, servers on ${cores === 2 ? 'core' : 'cores'} ${servers}, PostgreSQL on any` };
}

/** Runs `command` on the placement's server cores. */
export function onServerCpus(placement: Placement, command: string, args: string[]): [string, string[]] {
  return placement.serverCpus === undefined ? [command, args] : ['taskset', ['-c', placement.serverCpus, command, ...args]];
}

/**
 * Moves every thread of this process to `cpuList` (threads started later inherit it). Done only for the
 * measurements: the data set's seeding, a child process of its own, keeps every core.
 */
export function pinThisProcess(cpuList: string): void {
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpuList, String(process.pid)], { stdio: 'ignore' });
}

/** Gives every thread of this process every core again. */
export function unpinThisProcess(): void {
  // os.cpus(), not availableParallelism(): the latter counts only the cores this process may use now.
  pinThisProcess(`0-${cpus().length - 1}`);
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
