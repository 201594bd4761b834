import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertAccessList, insertActionTemplate, insertApiToken, insertBudgetAccount, insertCampaign, insertClaim, insertUser } from '../helpers/factories.js';

/**
 * Consumers generate a typed client from the API document (README, "Typed clients"). This test does
 * what they do: openapi-typescript over the committed openapi.json, then the TypeScript compiler
 * over examples/typed-client.ts (every operation through openapi-fetch) and the README's recipe,
 * with this project's strict options. The generated types live in memory only, as examples/api.d.ts.
 * Misuse must fail to compile, so the types are known to check something, and the example runs
 * against a live server, so that what compiles also works.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = join(ROOT, 'examples');
const GENERATED = join(EXAMPLES, 'api.d.ts');
const EXAMPLE = join(EXAMPLES, 'typed-client.ts');

interface Document {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> }>>;
}

async function generatedTypes(): Promise<string> {
  const document = JSON.parse(await readFile(join(ROOT, 'openapi.json'), 'utf8')) as Parameters<typeof openapiTS>[0];
  return astToString(await openapiTS(document));
}

/** Diagnostics of compiling `roots`, where `virtual` files (absolute path -> source) exist only in memory. */
function compile(roots: string[], virtual: Map<string, string>): { file: string; line: number; message: string }[] {
  const tsconfig = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path)).config as unknown;
  const { options } = ts.parseJsonConfigFileContent(tsconfig, ts.sys, ROOT);
  const compilerOptions = { ...options, noEmit: true, sourceMap: false };
  const disk = ts.createCompilerHost(compilerOptions);
  const host: ts.CompilerHost = {
    ...disk,
    fileExists: (path) => virtual.has(path) || disk.fileExists(path),
    readFile: (path) => virtual.get(path) ?? disk.readFile(path),
    getSourceFile: (path, language, ...rest) => {
      const source = virtual.get(path);
      return source === undefined ? disk.getSourceFile(path, language, ...rest) : ts.createSourceFile(path, source, language);
    },
  };
  const program = ts.createProgram({ rootNames: roots, options: compilerOptions, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ({
    file: diagnostic.file?.fileName ?? '',
    line: diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  }));
}

async function readmeRecipe(): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- typed-client:start -->[\s\S]*?```ts\n([\s\S]*?)```\s*<!-- typed-client:end -->/.exec(readme);
  if (!block?.[1]) throw new Error('README.md has no typed-client TypeScript block');
  return block[1];
}

/** Each line is a mistake the generated types must catch. */
const MISUSE = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';
const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000' });
await api.GET('/campaign');
await api.GET('/campaigns', { params: { query: { pageSize: '5' } } });
await api.GET('/campaigns', { params: { query: { sort: 'newest' } } });
await api.GET('/reward-kit/trending', { params: { query: { sortBy: '7d' } } });
await api.GET('/campaigns/{id}');
export const rank = (await api.GET('/users/profile')).data?.rank;
`;

describe('a typed client generated from openapi.json', () => {
  let types: string;

  beforeAll(async () => {
    types = await generatedTypes();
  }, 60_000);

  it('generates types for every path of the document', async () => {
    const document = JSON.parse(await readFile(join(ROOT, 'openapi.json'), 'utf8')) as Document;
    for (const path of Object.keys(document.paths)) expect(types).toContain(`"${path}": {`);
  });

  it('type-checks the example that calls every operation, and the README recipe, with no error', async () => {
    const recipe = join(EXAMPLES, 'readme-recipe.ts');
    const virtual = new Map([
      [GENERATED, types],
      [recipe, await readmeRecipe()],
    ]);
    expect(compile([EXAMPLE, recipe], virtual)).toEqual([]);
  }, 60_000);

  it('refuses misuse: an unknown path or parameter, a wrong type or value, a missing path parameter, an unknown field', () => {
    const misuse = join(EXAMPLES, 'misuse.ts');
    const diagnostics = compile([misuse], new Map([
      [GENERATED, types],
      [misuse, MISUSE],
    ]));
    expect(diagnostics.every((diagnostic) => diagnostic.file === misuse)).toBe(true);
    expect([...new Set(diagnostics.map((diagnostic) => diagnostic.line))].sort((a, b) => a - b)).toEqual([4, 5, 6, 7, 8, 9]);
  }, 60_000);
});

describe('the typed client example against a live server', () => {
  let database: TestDatabase;
  let app: App;
  let baseUrl: string;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database);
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    // Two older campaigns for the campaign list's walk; the newest, listed first, has the claims.
    for (let older = 0; older < 2; older += 1) await insertCampaign(database.db);
    const campaign = await insertCampaign(database.db);
    for (let claim = 0; claim < 5; claim += 1) await insertClaim(database.db, { campaignKey: campaign.key });
    await insertActionTemplate(database.db);
    await insertBudgetAccount(database.db, { chainId: 8453 });
    const user = await insertUser(database.db);
    await insertAccessList(database.db, { ownerUserId: user.id });
    ({ token } = await insertApiToken(database.db, user.id));
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('calls every operation of the document, each answering 200', async () => {
    // Imported by URL: the example's type import (./api.js) exists only once generated.
    const example = (await import(pathToFileURL(EXAMPLE).href)) as {
      callEveryOperation: (options: { baseUrl: string; stagingUrl: string; token: string }) => Promise<{
        calls: Record<string, { response: Response; error?: unknown }>;
        summary: Record<string, unknown>;
      }>;
    };
    const { calls, summary } = await example.callEveryOperation({ baseUrl, stagingUrl: baseUrl, token });

    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Document;
    // Every JSON operation: GET /events is a Server-Sent Events stream, which EventSource reads, not this client.
    const operationIds = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods)
        // GET /signatures needs a transaction on a chain: test/protocol/signatures.test.ts asks for them on anvil.
        .filter((operation) => operation.responses['200']?.content?.['application/json'] && operation.operationId !== 'getSignatures')
        .map((operation) => operation.operationId),
    );
    expect(Object.keys(calls).sort()).toEqual(operationIds.sort());
    for (const [operationId, call] of Object.entries(calls)) {
      expect({ operationId, status: call.response.status, error: call.error }).toEqual({ operationId, status: 200, error: undefined });
    }
    // The walks by cursor: two claims a page met all five claims of the newest campaign, one campaign
    // a page all three campaigns.
    expect(summary).toMatchObject({ campaigns: 3, accessLists: 1, contracts: expect.any(Number) as unknown, walked: 5, walkedCampaigns: 3 });
  });
});
