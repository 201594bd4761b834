import { PassThrough } from 'node:stream';
import pinoPretty from 'pino-pretty';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type App, buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger, createServerLogger, prettyLogStream, wantsPrettyLogs } from '../src/logger.js';
import { testConfig } from './helpers/app.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

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

describe('request log', () => {
  let database: TestDatabase;
  const json: string[] = [];
  const terminal = fakeStdout(true);
  let jsonApp: App;
  let terminalApp: App;
  let debugApp: App;
  const debugLines: string[] = [];
  const TOKEN = `cs_${'A'.repeat(43)}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    const apps = [
      createLogger({ LOG_LEVEL: 'info' }, { write: (line: string) => void json.push(line) }),
      createLogger({ LOG_LEVEL: 'info' }, prettyLogStream(pinoPretty, terminal.stream, false)),
      createLogger({ LOG_LEVEL: 'debug' }, { write: (line: string) => void debugLines.push(line) }),
    ].map(async (logger) => {
      const app = await buildApp(testConfig(), { database, logger });
      await app.ready();
      return app;
    });
    [jsonApp, terminalApp, debugApp] = (await Promise.all(apps)) as [App, App, App];
  });
  afterAll(async () => {
    await Promise.all([jsonApp, terminalApp, debugApp].map((app) => app.close()));
    await database.close();
  });

  type Line = { level: number; msg: string; reqId?: string; req?: { method: string; url: string }; res?: { statusCode: number }; responseTime?: number };
  const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as Line);

  it('is one JSON line per request when it completes: method, URL, status and time under the request id', async () => {
    json.length = 0;
    await jsonApp.inject({ url: '/health/live', headers: { 'x-request-id': 'one-line' } });
    const [line, ...rest] = parsed(json);
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ level: 30, msg: 'request completed', reqId: 'one-line', req: { method: 'GET', url: '/health/live' }, res: { statusCode: 200 } });
    expect(line!.responseTime).toBeTypeOf('number');
  });

  it('carries the URL of a refused request too, with any token in it masked', async () => {
    json.length = 0;
    await jsonApp.inject({ url: `/users/profile?access_token=${TOKEN}` });
    const completed = parsed(json).filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ req: { method: 'GET', url: '/users/profile?access_token=cs_[redacted]' }, res: { statusCode: 401 } });
    expect(json.join('\n')).not.toContain(TOKEN);
  });

  it('logs the incoming request only at debug', async () => {
    debugLines.length = 0;
    await debugApp.inject({ url: '/health/live' });
    expect(parsed(debugLines).map(({ level, msg }) => [level, msg])).toEqual([
      [20, 'incoming request'],
      [30, 'request completed'],
    ]);
  });

  it('is one readable line per request on a terminal', async () => {
    // The claim volumes' first load logs lines of its own when it ends, which on PGlite is after the
    // first request has been answered: the lines counted begin once it has been logged.
    expect(await terminalApp.claimWindows.whenLoaded(30_000)).toBe(true);
    await vi.waitFor(() => expect(terminal.text()).toContain('claim volumes loaded'), { timeout: 30_000 });
    const before = terminal.text().length;
    await terminalApp.inject({ url: '/campaigns?pageSize=1' });
    await terminalApp.inject({ method: 'HEAD', url: '/no/such/path' });
    const lines = terminal.text().slice(before).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/campaigns\?pageSize=1 200 \d+\.\d ms$/);
    expect(lines[1]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: HEAD \/no\/such\/path 404 \d+\.\d ms$/);
  });
});
