import cliProgress from 'cli-progress';

/**
 * Progress of a long command: a bar with records/s and ETA on a terminal, a log line every few
 * seconds elsewhere (CI logs, `docker run` without -t). `total` is in the unit of `advance` (bytes
 * of the input for import); unknown (stdin) shows counts only.
 */
export function createProgress(label: string, total: number | undefined, unit: string) {
  const started = Date.now();
  let done = 0;
  let records = 0;
  const rate = () => Math.round(records / Math.max((Date.now() - started) / 1000, 0.001));
  if (process.stderr.isTTY && total !== undefined) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {percentage}% | {records} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`, etaBuffer: 50 },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { records: 0, rate: 0 });
    return {
      update(position: number, count: number) {
        done = position;
        records = count;
        bar.update(Math.min(done, total), { records: records.toLocaleString('en-US'), rate: rate().toLocaleString('en-US') });
      },
      stop: () => bar.stop(),
    };
  }
  let logged = started;
  return {
    update(position: number, count: number) {
      done = position;
      records = count;
      if (Date.now() - logged < 5000) return;
      logged = Date.now();
      const share = total ? `, ${Math.floor((done / total) * 100)}% of the input` : '';
      console.error(`${label}: ${records.toLocaleString('en-US')} ${unit} (${rate().toLocaleString('en-US')}/s${share})`);
    },
    stop: () => undefined,
  };
}
