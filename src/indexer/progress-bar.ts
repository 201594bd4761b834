import cliProgress from 'cli-progress';
import type { Logger } from 'pino';
import type { Progress } from './core-indexer.js';

/**
 * Backfill progress: on a terminal one bar per chain and core (blocks from the start block to the
 * confirmed head, logs/s, claims); elsewhere an info line per core every 10 seconds while behind.
 */
export function createBackfillProgress(logger: Logger, interactive = process.stderr.isTTY === true) {
  const started = Date.now();
  const claims = new Map<string, number>();
  if (interactive) {
    const multibar = new cliProgress.MultiBar(
      {
        format: '{core} [{bar}] {percentage}% | block {value}/{total} | {claims} claims | {rate} claims/s | ETA {eta_formatted}',
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    const bars = new Map<string, cliProgress.SingleBar>();
    return {
      update(progress: Progress) {
        const key = `${progress.chainId}:${progress.core}`;
        const total = Number(progress.safeBlock - progress.startBlock + 1n);
        const value = Math.max(0, Number(progress.indexedBlock - progress.startBlock + 1n));
        const count = (claims.get(key) ?? 0) + progress.claims;
        claims.set(key, count);
        const payload = {
          core: `${progress.chainId}:${progress.core.slice(0, 10)}…`,
          claims: count.toLocaleString('en-US'),
          rate: Math.round(count / Math.max((Date.now() - started) / 1000, 0.001)).toLocaleString('en-US'),
        };
        const bar = bars.get(key);
        if (!bar) bars.set(key, multibar.create(total, value, payload));
        else {
          bar.setTotal(total);
          bar.update(value, payload);
        }
      },
      stop: () => multibar.stop(),
    };
  }
  const logged = new Map<string, number>();
  return {
    update(progress: Progress) {
      const key = `${progress.chainId}:${progress.core}`;
      claims.set(key, (claims.get(key) ?? 0) + progress.claims);
      if (progress.indexedBlock >= progress.safeBlock || Date.now() - (logged.get(key) ?? started) < 10_000) return;
      logged.set(key, Date.now());
      logger.info(
        {
          chainId: progress.chainId,
          core: progress.core,
          indexedBlock: progress.indexedBlock.toString(),
          safeBlock: progress.safeBlock.toString(),
          claims: claims.get(key),
        },
        'backfilling',
      );
    },
    stop: () => undefined,
  };
}
