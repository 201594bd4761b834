import { PassThrough } from 'node:stream';
import pinoPretty from 'pino-pretty';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createLogger, createServerLogger, prettyLogStream, wantsPrettyLogs } from '../src/logger.js';

/** A stream that says it is, or is not, a terminal, and keeps what was written. */
function fakeStdout(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
  stream.isTTY = isTTY;
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

describe('log format', () => {
  it('is pretty on a terminal and JSON elsewhere, unless LOG_FORMAT says otherwise', () => {
    expect(wantsPrettyLogs(undefined, true)).toBe(true);
    expect(wantsPrettyLogs(undefined, false)).toBe(false);
    expect(wantsPrettyLogs('json', true)).toBe(false);
    expect(wantsPrettyLogs('pretty', false)).toBe(true);
  });

  it('is JSON with NODE_ENV=production, even on a terminal, unless LOG_FORMAT=pretty', () => {
    expect(loadConfig({}).LOG_FORMAT).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'production' }).LOG_FORMAT).toBe('json');
    expect(loadConfig({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT/);
  });

  it('writes readable lines to a terminal, credentials still redacted', async () => {
    const stdout = fakeStdout(true);
    const logger = await createServerLogger({ LOG_LEVEL: 'info', LOG_FORMAT: undefined }, stdout.stream);
    logger.info({ headers: { authorization: 'Bearer cs_secret' }, campaigns: 3 }, 'demo data loaded');
    logger.flush();
    // eslint-disable-next-line no-control-regex
    const text = stdout.text().replace(/\u001b\[[0-9;]*m/g, '');
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: demo data loaded\n/);
    expect(text).toContain('campaigns: 3');
    expect(text).toContain('"[redacted]"');
    expect(text).not.toContain('cs_secret');
    expect(text).not.toContain('"level"');
  });

  it('colours only a terminal', () => {
    const file = fakeStdout(false);
    const logger = createLogger({ LOG_LEVEL: 'info' }, prettyLogStream(pinoPretty, file.stream, false));
    logger.warn('no colours in a file');
    logger.flush();
    expect(file.text()).toMatch(/WARN: no colours in a file/);
    expect(file.text()).not.toContain('\u001b[');
  });
});
