import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { parseCommandLine } from '../src/cli/command-line.js';

/**
 * `npm run bench:compression -- DIR`: for every answer body saved in DIR (e.g. with
 * `curl -s localhost:3000/campaigns?pageSize=20 > DIR/campaigns-20.json`), the bytes and the CPU
 * time of each encoding and level the service could send, so that the choice made in
 * src/plugins/external/compression.ts can be checked against real answers. One table row per
 * body, smallest first; CPU time is the median of repeated synchronous calls on this thread.
 */

const USAGE = `Usage: npm run bench:compression -- DIR

Prints, for every file in DIR, the bytes and microseconds of gzip levels 1 and 6 and brotli
qualities 1 to 5, the encodings the service could send.`;

const args = parseCommandLine(USAGE, { allowPositionals: true });
if (!args) process.exit(0);
const [directory] = args.positionals;
if (directory === undefined) {
  console.error(USAGE);
  process.exit(2);
}

interface Encoder {
  name: string;
  encode: (body: Buffer) => Buffer;
}

const encoders: Encoder[] = [
  { name: 'gzip1', encode: (body) => gzipSync(body, { level: 1 }) },
  { name: 'gzip6', encode: (body) => gzipSync(body, { level: 6 }) },
  ...[1, 2, 3, 4, 5].map((quality) => ({
    name: `br${quality}`,
    encode: (body: Buffer) =>
      brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      }),
  })),
];

function medianMicros(encode: () => void, budgetMs = 200): number {
  const samples: number[] = [];
  const until = performance.now() + budgetMs;
  while (samples.length < 5 || (performance.now() < until && samples.length < 2000)) {
    const start = performance.now();
    encode();
    samples.push((performance.now() - start) * 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const bodies = readdirSync(directory)
  .map((name) => ({ name, body: readFileSync(join(directory, name)) }))
  .filter(({ body }) => body.length > 0)
  .sort((a, b) => a.body.length - b.body.length);

console.log(['bytes', ...encoders.map(({ name }) => `${name} B`), ...encoders.map(({ name }) => `${name} µs`), 'file'].join('\t'));
for (const { name, body } of bodies) {
  const sizes = encoders.map(({ encode }) => encode(body).length);
  const micros = encoders.map(({ encode }) => medianMicros(() => encode(body)).toFixed(0));
  console.log([body.length, ...sizes, ...micros, name].join('\t'));
}
