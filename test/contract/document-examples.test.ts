import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { generateOpenApiDocument } from '../../src/cli/openapi-document.js';
import { QUERY_CANCELED } from '../../src/db/errors.js';
import { prepareDemo } from '../../src/demo.js';
import { BAD_REQUEST_EXAMPLES, NOT_FOUND_EXAMPLES, STATUS_EXAMPLES } from '../../src/openapi/error-examples.js';
import { classifyError } from '../../src/plugins/error-handler.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertApiToken, insertUser } from '../helpers/factories.js';
import { hasData } from '../helpers/has-data.js';

/**
 * The document's examples are real: its required parameters' examples answer with data on the demo
 * data set (what the docs page's "Try it out" sends on the zero-setup start), and every error example
 * is the answer the server gives. test/e2e/docs-try-it-out.test.ts clicks through the same in Chromium.
 */

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
}
interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
}
type Paths = Record<string, Record<string, Operation>>;

async function documentPaths(): Promise<Paths> {
  return (JSON.parse(await generateOpenApiDocument()) as { paths: Paths }).paths;
}

/** The request "Try it out" sends when nothing is typed in: the path's parameters and the required query parameters, from their examples. */
function exampleRequest(path: string, operation: Operation): string {
  const parameters = operation.parameters ?? [];
  const url = path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(String(parameters.find((p) => p.name === name)?.example)));
  const query = parameters
    .filter((parameter) => parameter.in === 'query' && parameter.required)
    .map((parameter) => `${parameter.name}=${encodeURIComponent(String(parameter.example))}`);
  return query.length ? `${url}?${query.join('&')}` : url;
}

describe('the API document’s examples on the demo data', () => {
  let database: TestDatabase;
  let app: App;
  let token: string;
  let paths: Paths;

  beforeAll(async () => {
    database = await createTestDatabase();
    token = await prepareDemo(database, pino({ level: 'silent' }));
    app = await buildTestApp(database);
    paths = await documentPaths();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('answers 200 with data on every operation called with its required parameters’ examples only', async () => {
    const answers: Record<string, { status: number; data: boolean }> = {};
    const expected: typeof answers = {};
    for (const [path, methods] of Object.entries(paths)) {
      for (const operation of Object.values(methods)) {
        // A Server-Sent Events stream never ends: test/routes/events.test.ts reads it.
        if (operation.responses['200']?.content?.['text/event-stream']) continue;
        // A signature needs a transaction on a chain: test/protocol/signatures.test.ts asks for them on anvil.
        if (operation.operationId === 'getSignatures') continue;
        const headers = operation.security ? { authorization: `Bearer ${token}` } : {};
        const response = await app.inject({ url: exampleRequest(path, operation), headers });
        answers[operation.operationId] = { status: response.statusCode, data: hasData(response.json()) };
        expected[operation.operationId] = { status: 200, data: true };
      }
    }
    expect(Object.keys(answers)).toHaveLength(21);
    expect(answers).toEqual(expected);
  });
});

describe('the API document’s error examples', () => {
  let database: TestDatabase;
  let app: App;
  let token: string;
  let paths: Paths;

  beforeAll(async () => {
    database = await createTestDatabase();
    const user = await insertUser(database.db);
    ({ token } = await insertApiToken(database.db, user.id));
    app = await buildTestApp(database, { RATE_LIMIT_MAX: '600' });
    paths = await documentPaths();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const operations = () => Object.values(paths).flatMap((methods) => Object.values(methods));
  const exampleOf = (operation: Operation, status: string) => operation.responses[status]?.content?.['application/json']?.example;

  it('shows under each error status of each operation an example of its own', () => {
    for (const operation of operations()) {
      const errors = Object.keys(operation.responses).filter((status) => Number(status) >= 400);
      const examples = errors.map((status) => JSON.stringify(exampleOf(operation, status)));
      for (const [index, status] of errors.entries()) expect(examples[index], `${operation.operationId} ${status}`).toMatch(/^\{"error":".+"\}$/);
      expect(new Set(examples).size, `${operation.operationId}: ${examples.join(' ')}`).toBe(examples.length);
    }
  });

  it('shows as a 400 or 404 example the answer to its request', async () => {
    const byOperation = Object.fromEntries(operations().map((operation) => [operation.operationId, operation]));
    for (const [status, examples] of [['400', BAD_REQUEST_EXAMPLES], ['404', NOT_FOUND_EXAMPLES]] as const) {
      for (const [operationId, { request, error }] of Object.entries(examples)) {
        const operation = byOperation[operationId];
        expect(exampleOf(operation!, status), `${operationId} documents ${status}`).toEqual({ error });
        const headers = operation!.security ? { authorization: `Bearer ${token}` } : {};
        const response = await app.inject({ url: request, headers });
        expect({ status: response.statusCode, body: response.json<unknown>() }, `${operationId}: GET ${request}`).toEqual({ status: Number(status), body: { error } });
      }
    }
    const documented = operations().filter((operation) => operation.responses['400']).map((operation) => operation.operationId);
    expect(Object.keys(BAD_REQUEST_EXAMPLES).sort()).toEqual(documented.sort());
    const notFound = operations().filter((operation) => operation.responses['404']).map((operation) => operation.operationId);
    expect(Object.keys(NOT_FOUND_EXAMPLES).sort()).toEqual(notFound.sort());
  });

  it('shows the real 401 and 403', async () => {
    const missing = await app.inject('/users/profile');
    expect({ status: missing.statusCode, body: missing.json<unknown>() }).toEqual({ status: 401, body: { error: STATUS_EXAMPLES[401] } });
    const otherUser = await app.inject({
      url: '/campaigns/accesslists?userId=00000000-0000-4000-8000-000000000000',
      headers: { authorization: `Bearer ${token}` },
    });
    expect({ status: otherUser.statusCode, body: otherUser.json<unknown>() }).toEqual({ status: 403, body: { error: STATUS_EXAMPLES[403] } });
  });

  it('shows the real 429, up to the seconds left', async () => {
    let response = await app.inject('/known-signatures?pageSize=0');
    for (let sent = 1; sent <= 600 && response.statusCode !== 429; sent++) response = await app.inject('/known-signatures?pageSize=0');
    expect(response.statusCode).toBe(429);
    const { error } = response.json<{ error: string }>();
    const withoutWait = (message: string) => message.replace(/retry in .+$/, 'retry in …');
    expect(withoutWait(error)).toBe(withoutWait(STATUS_EXAMPLES[429]!));
  });

  it('shows the messages the error handler gives for 500, 503 and 504', () => {
    expect(classifyError(new Error('boom'))).toMatchObject({ statusCode: 500, message: STATUS_EXAMPLES[500] });
    expect(classifyError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toMatchObject({ statusCode: 503, message: STATUS_EXAMPLES[503] });
    expect(classifyError(Object.assign(new Error('canceled'), { code: QUERY_CANCELED }))).toMatchObject({ statusCode: 504, message: STATUS_EXAMPLES[504] });
  });
});
