import { afterEach, describe, expect, it } from 'vitest';
import { Poller, type PollerOptions } from '../src/poller.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise the test resolves itself. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

async function until(what: string, check: () => boolean): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > 5_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

describe('Poller', () => {
  const pollers: Poller[] = [];
  const poller = (options: Partial<PollerOptions> & Pick<PollerOptions, 'round'>) => {
    const created = new Poller({ pause: () => 1, onError: () => undefined, ...options });
    pollers.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(pollers.splice(0).map((each) => each.close()));
  });

  it('runs rounds one after the other, never two at a time', async () => {
    let running = 0;
    let most = 0;
    let rounds = 0;
    const loop = poller({
      round: async () => {
        running++;
        most = Math.max(most, running);
        await sleep(5);
        running--;
        rounds++;
      },
    });
    loop.start();
    loop.start();
    await until('five rounds', () => rounds >= 5);
    expect(most).toBe(1);
  });

  it('close during a round waits for it, and no round starts after close', async () => {
    const inRound = gate();
    const release = gate();
    let rounds = 0;
    let ended = false;
    const loop = poller({
      round: async () => {
        rounds++;
        inRound.open();
        await release.promise;
        ended = true;
      },
    });
    loop.start();
    await inRound.promise;
    let closed = false;
    const closing = loop.close().then(() => {
      closed = true;
    });
    await sleep(10);
    expect(closed).toBe(false);
    release.open();
    await closing;
    expect(ended).toBe(true);
    await sleep(20);
    expect(rounds).toBe(1);
  });

  it('close before the first round: none runs, and start after close starts nothing', async () => {
    let rounds = 0;
    const loop = poller({ round: async () => void rounds++ });
    loop.start(5);
    await loop.close();
    loop.start();
    await sleep(20);
    expect(rounds).toBe(0);
  });

  it('a failing round is reported and the loop goes on; the report says when the one before failed too', async () => {
    const reports: [string, boolean][] = [];
    let recovered = 0;
    let rounds = 0;
    const loop = poller({
      round: async () => {
        rounds++;
        if (rounds <= 2) throw new Error(`round ${rounds}`);
      },
      onError: (error, again) => reports.push([(error as Error).message, again]),
      onRecovered: () => recovered++,
    });
    loop.start();
    await until('a round after the failures', () => rounds >= 4);
    expect(reports).toEqual([
      ['round 1', false],
      ['round 2', true],
    ]);
    expect(recovered).toBe(1);
    expect(loop.failing).toBe(false);
  });

  it('asks for the pause after each round, and hurry() brings a pending round forward, never back', async () => {
    let rounds = 0;
    let pause = 60_000;
    const loop = poller({ round: async () => void rounds++, pause: () => pause });
    loop.start();
    await until('the first round', () => rounds === 1);
    await sleep(10);
    expect(rounds).toBe(1);
    pause = 1;
    loop.hurry(0);
    await until('the hurried round', () => rounds >= 2);
  });

  it('hurry() never puts a pending round off', async () => {
    let rounds = 0;
    const loop = poller({ round: async () => void rounds++, pause: () => 60_000 });
    loop.start(20);
    loop.hurry(60_000);
    await until('the round due first', () => rounds === 1);
  });
});
