import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  security?: unknown;
  parameters?: { name: string; in: string; required?: boolean }[];
  responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

/** The two staging operations as the OpenAPI document shows them. */
describe('OpenAPI document: staging operations', () => {
  let database: TestDatabase;
  let app: App;
  let document: Document;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildTestApp(database);
    document = app.swagger() as unknown as Document;
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const refOf = (operation: Operation, status: string) =>
    operation.responses?.[status]?.content?.['application/json']?.schema?.$ref;

  it('declares the bearer scheme', () => {
    expect(document.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }) as unknown,
    });
  });

  it.each([
    // 429 and 500 are added to every operation by the OpenAPI plugin.
    ['/campaigns/accesslists', 'listAccessLists', 'AccessListPage', ['200', '400', '401', '403', '429', '500', '503', '504']],
    ['/users/profile', 'getUserProfile', 'UserProfile', ['200', '400', '401', '429', '500', '503', '504']],
  ])('%s: %s, bearer-guarded, named responses', (path, operationId, body, statuses) => {
    const operation = document.paths[path]?.get;
    expect(operation).toBeDefined();
    expect(operation).toMatchObject({ operationId, security: [{ bearerAuth: [] }] });
    expect(operation!.tags).toHaveLength(1);
    expect(operation!.summary).toBeTruthy();
    expect(operation!.description).toBeTruthy();
    expect(Object.keys(operation!.responses ?? {}).sort()).toEqual(statuses);
    expect(refOf(operation!, '200')).toBe(`#/components/schemas/${body}`);
    for (const status of statuses.slice(1)) expect(refOf(operation!, status)).toBe('#/components/schemas/ErrorResponse');
    expect(document.components.schemas[body]).toBeDefined();
  });

  it('lists the access-list query parameters, none of them required', () => {
    const parameters = document.paths['/campaigns/accesslists']?.get?.parameters ?? [];
    expect(parameters.map((parameter) => parameter.name)).toEqual(['userId', 'search', 'sortBy', 'order', 'page', 'pageSize']);
    expect(parameters.every((parameter) => parameter.in === 'query' && parameter.required !== true)).toBe(true);
    expect(document.components.schemas.AccessList).toBeDefined();
    expect(document.components.schemas.Streak).toBeDefined();
  });
});
