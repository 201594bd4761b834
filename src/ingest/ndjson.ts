import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** One line of an NDJSON input, numbered from 1. */
export interface Line {
  number: number;
  text: string;
}

export class TruncatedInputError extends Error {
  constructor(readonly lineNumber: number) {
    super('the last line does not end with a newline: the file looks truncated');
  }
}

/**
 * The lines of a stream, one at a time, so memory holds one chunk whatever the input's size.
 * Every line must end with `\n` (export writes it so): a last line without one is what a copy cut
 * short leaves, and it is refused rather than guessed at. Empty lines are skipped.
 */
export async function* readLines(input: Readable, onBytes: (bytes: number) => void = () => undefined): AsyncGenerator<Line> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let number = 0;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    onBytes(chunk.length);
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    let end = pending.indexOf('\n', start);
    while (end !== -1) {
      number++;
      const text = pending.slice(start, end).replace(/\r$/, '');
      if (text.trim() !== '') yield { number, text };
      start = end + 1;
      end = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending.trim() !== '') throw new TruncatedInputError(number + 1);
}
