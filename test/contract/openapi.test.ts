import { readFile } from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { generateOpenApiDocument } from '../../src/cli/openapi-document.js';
import { ConfigSchema } from '../../src/config.js';
import { ErrorResponse } from '../../src/schemas/common.js';
import { ref } from '../../src/schemas/typebox.js';
import { settingDefault } from '../../src/setting-defaults.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectToMatchSchema } from '../helpers/schema.js';

/**
 * The API document as a contract: the committed openapi.json is exactly what the code generates,
 * it is valid OpenAPI, and every operation is documented the way consumers rely on.
 */

interface Operation {
  operationId?: string;
  description?: string;
  tags?: string[];
  summary?: string;
  security?: Record<string, string[]>[];
  servers?: { url: string; description?: string }[];
  parameters?: { name: string; in: string; required?: boolean; example?: unknown; examples?: unknown }[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string }; example?: unknown }> }>;
}
interface Document {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers: { url: string; description?: string }[];
  tags: { name: string; description?: string }[];
  security?: unknown;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme?: string }> };
}

const COMMITTED_PATH = new URL('../../openapi.json', import.meta.url);
const PUBLIC_PATHS = [
  '/campaigns',
  '/campaigns/{id}',
  '/reward-kit/trending',
  '/explore/contracts',
  '/known-signatures',
  '/signatures/claimable/{address}',
  '/blocklist/{chainId}/{tokenAddress}',
  '/action-templates',
  '/action-templates/{id}',
  '/budget-accounts',
  '/budget-accounts/{id}',
  '/reward-kit/campaigns',
  '/reward-kit',
  '/reward-kit/campaigns/{id}',
  '/explore',
  '/campaigns/{id}/activity',
  '/campaigns/{id}/history',
  '/campaigns/{id}/leaderboard',
  '/leaderboard',
];
const STAGING_PATHS = ['/campaigns/accesslists', '/users/profile'];
/** Not JSON: a Server-Sent Events stream. */
const STREAM_PATHS = ['/events'];
/** Public, decided against the chain at each request: not cacheable. */
const SIGNING_PATHS = ['/signatures'];

function operationsOf(document: Document): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${path}`, operation]),
  );
}

const componentName = (schemaRef: string | undefined) => schemaRef?.replace('#/components/schemas/', '');

/** Every `description` of the document, with where it is. */
function descriptionsOf(node: unknown, at = ''): [string, string][] {
  if (Array.isArray(node)) return node.flatMap((item, index) => descriptionsOf(item, `${at}[${index}]`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]): [string, string][] =>
    key === 'description' && typeof value === 'string' ? [[at, value]] : descriptionsOf(value, `${at}.${key}`),
  );
}

describe('the OpenAPI document', () => {
  let generated: string;
  let document: Document;

  beforeAll(async () => {
    generated = await generateOpenApiDocument();
    document = JSON.parse(generated) as Document;
  });

  it('is committed as openapi.json, byte for byte (after changing a route: run `npm run openapi` and commit)', async () => {
    const committed = await readFile(COMMITTED_PATH, 'utf8').catch(() => '<missing>');
    expect(committed, 'openapi.json is out of date: run `npm run openapi` and commit the result').toBe(generated);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    expect(document.openapi).toBe('3.1.0');
  });

  it('names the API, its version 2.0.0, and describes auth, errors, pagination, caching and rate limits', () => {
    expect(document.info.title).toBe('Reward Campaign Service API');
    expect(document.info.version).toBe('2.0.0');
    for (const topic of ['## Authentication', '## Errors', '## Pagination', '## Caching', '## Rate limits']) {
      expect(document.info.description).toContain(topic);
    }
  });

  it('lists the public server at the root, and the staging server on each staging operation, even when the URLs are equal', () => {
    expect(document.servers.map((server) => server.description)).toEqual(['Public operations']);
    for (const [name, operation] of operationsOf(document)) {
      const path = name.split(' ')[1]!;
      if (STAGING_PATHS.includes(path)) {
        expect(operation.servers?.map((server) => server.description), name).toEqual(['Staging operations (access lists, user profile)']);
      } else {
        expect(operation.servers, name).toBeUndefined();
      }
    }
  });

  it('describes its tags', () => {
    expect(document.tags.map((tag) => tag.name)).toEqual([
      'campaigns',
      'activity',
      'reward-kit',
      'action-templates',
      'budget-accounts',
      'registry',
      'staging',
      'events',
    ]);
    for (const tag of document.tags) expect(tag.description, tag.name).toBeTruthy();
  });

  it('names every component after its schema (no def-0, no schema0)', () => {
    const names = Object.keys(document.components.schemas);
    expect(names).toContain('CampaignList');
    for (const name of names) expect(name).not.toMatch(/^(def-|schema)\d/);
    expect(generated).not.toMatch(/#\/components\/schemas\/(def-|schema)\d/);
  });

  it('documents every operation', () => {
    expect(Object.keys(document.paths).sort()).toEqual([...PUBLIC_PATHS, ...STAGING_PATHS, ...STREAM_PATHS, ...SIGNING_PATHS].sort());
  });

  it('leaves out the operational routes: health, metrics, docs and the document itself', () => {
    for (const path of Object.keys(document.paths)) expect(path).not.toMatch(/^\/(health|metrics|docs|openapi)/);
  });

  it('gives every operation a unique operationId, known tags and a summary', () => {
    const tagNames = document.tags.map((tag) => tag.name);
    const ids = operationsOf(document).map(([name, operation]) => {
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, name).toBeTruthy();
      expect(operation.tags?.length, name).toBeGreaterThan(0);
      for (const tag of operation.tags ?? []) expect(tagNames, name).toContain(tag);
      return operation.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every required parameter an example and no optional one (the docs page would fill it in)', () => {
    for (const [name, operation] of operationsOf(document)) {
      for (const parameter of operation.parameters ?? []) {
        const example = parameter.example ?? parameter.examples;
        if (parameter.required) expect(example, `${name}: parameter ${parameter.name} has no example`).toBeDefined();
        else expect(example, `${name}: optional parameter ${parameter.name} has an example`).toBeUndefined();
      }
    }
  });

  it('has no description that Markdown would cut: every <placeholder> is in a code span', () => {
    const cut: string[] = [];
    for (const [at, description] of descriptionsOf(document)) {
      const prose = description.replace(/```[\s\S]*?```/g, '').replace(/`[^`]*`/g, '').replace(/<\/?(details|summary)>/g, '');
      for (const tag of prose.match(/<[^>]*>/g) ?? []) cut.push(`${at}: ${tag}`);
    }
    expect(cut).toEqual([]);
  });

  it('has no description line that Markdown would start a numbered list with (a wrapped sentence ending "is a" / "403. ...")', () => {
    const numbered = descriptionsOf(document).flatMap(([at, description]) =>
      description
        .split('\n')
        .filter((line) => /^\s*\d+[.)]\s/.test(line))
        .map((line) => `${at}: ${line}`),
    );
    expect(numbered).toEqual([]);
  });

  it('gives the default value beside every setting a description names (a frontend developer needs the number)', () => {
    const settings = Object.keys(ConfigSchema.properties) as (keyof typeof ConfigSchema.properties)[];
    const bare: string[] = [];
    for (const [at, description] of descriptionsOf(document)) {
      // The sentence (or parenthesis) that names the setting says its value.
      for (const sentence of description.split(/\.\s/)) {
        for (const name of settings.filter((setting) => new RegExp(`\\b${setting}\\b`).test(sentence))) {
          if (!/by default/i.test(sentence) || !sentence.includes(settingDefault(name))) bare.push(`${at}: ${name} in "${sentence}"`);
        }
      }
    }
    expect(bare).toEqual([]);
  });

  it('tells on GET /events that this page cannot show a stream, and how to watch one', () => {
    const description = document.paths['/events']!.get!.description ?? '';
    expect(description).toContain('This page cannot show a stream');
    expect(description).toMatch(/curl -N '[^']*\/events\?/);
  });

  it('gives every operation a 200 example that matches its schema', () => {
    for (const [name, operation] of operationsOf(document)) {
      const content = operation.responses['200']?.content;
      const media = content?.['application/json'] ?? content?.['text/event-stream'];
      expect(media?.example, `${name}: 200 has no example`).toBeDefined();
      const schemaId = componentName(media?.schema?.$ref);
      if (schemaId) expectToMatchSchema(media?.example, schemaId);
    }
  });

  it('documents the errors every operation can return, each in the envelope', () => {
    for (const [name, operation] of operationsOf(document)) {
      const statuses = Object.keys(operation.responses);
      expect(statuses, name).toEqual(expect.arrayContaining(['400', '429', '500', '503']));
      for (const status of statuses.filter((code) => Number(code) >= 400)) {
        // GET /signatures' 400 is the envelope or, for a refused transaction, the coded envelope.
        const envelope = name === 'GET /signatures' && status === '400' ? 'SignatureError' : 'ErrorResponse';
        expect(componentName(operation.responses[status]?.content?.['application/json']?.schema?.$ref), `${name} ${status}`).toBe(envelope);
      }
    }
    expect(Object.keys(document.paths['/campaigns/{id}']!.get!.responses)).toContain('404');
  });

  it('documents 304 and the cache headers on the publicly cached operations', () => {
    for (const path of PUBLIC_PATHS) {
      const responses = document.paths[path]!.get!.responses as Record<string, { headers?: Record<string, unknown> }>;
      expect(Object.keys(responses['200']?.headers ?? {}), path).toEqual(['ETag', 'Cache-Control', 'Indexed-Blocks', 'Age']);
      expect(responses['304'], path).toBeDefined();
    }
  });

  it('declares the bearerAuth scheme, required by no operation unless its route says so', () => {
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toBeUndefined();
    for (const [name, operation] of operationsOf(document)) {
      const path = name.split(' ')[1]!;
      if (STAGING_PATHS.includes(path)) expect(operation.security, name).toEqual([{ bearerAuth: [] }]);
      else expect(operation.security, name).toBeUndefined();
    }
  });
});

describe('GET /openapi.json', () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database, { BASE_URL: 'https://api.example.com', STAGING_URL: 'https://staging.example.com' }, (app) => {
      // A route that declares bearer security, as the staging routes do.
      app.get(
        '/contract-test/guarded',
        {
          schema: {
            operationId: 'guardedForTest',
            tags: ['staging'],
            summary: 'Guarded',
            security: [{ bearerAuth: [] }],
            response: { 200: Type.Object({ ok: Type.Boolean() }), 401: ref(ErrorResponse) },
          },
        },
        async () => ({ ok: true }),
      );
    });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('serves the document with the configured servers: BASE_URL at the root, STAGING_URL on the staging operations only', async () => {
    const response = await app.inject('/openapi.json');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const served = response.json<Document>();
    expect(served.servers.map((server) => server.url)).toEqual(['https://api.example.com']);
    const withServers = operationsOf(served).filter(([, operation]) => operation.servers !== undefined);
    // The guarded test route is outside the staging scope: bearer security alone does not make it staging.
    expect(withServers.map(([name, operation]) => [name, operation.servers?.map((server) => server.url)])).toEqual([
      ['GET /campaigns/accesslists', ['https://staging.example.com']],
      ['GET /users/profile', ['https://staging.example.com']],
    ]);
  });

  it('applies bearerAuth to exactly the operations whose route declares it', async () => {
    const served = (await app.inject('/openapi.json')).json<Document>();
    const guarded = operationsOf(served).filter(([, operation]) => operation.security !== undefined);
    expect(guarded.map(([name, operation]) => [name, operation.security])).toEqual([
      ['GET /campaigns/accesslists', [{ bearerAuth: [] }]],
      ['GET /users/profile', [{ bearerAuth: [] }]],
      ['GET /contract-test/guarded', [{ bearerAuth: [] }]],
    ]);
  });
});
