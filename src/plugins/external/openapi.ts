import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { API_DESCRIPTION, API_TAGS, API_TITLE, API_VERSION, SECURITY_SCHEMES } from '../../openapi/api-info.js';
import { withAppWideResponses } from '../../openapi/app-wide-responses.js';
import { DOCS_BRANDING } from '../../openapi/docs-branding.js';
import { withParameterExamples } from '../../openapi/parameter-examples.js';
import { createResponseExamples } from '../../openapi/response-examples.js';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PREFIX = '/docs';

export interface OpenApiOptions {
  baseUrl: string;
  stagingUrl: string;
}

/**
 * The OpenAPI 3.1 document, generated from the routes' TypeBox schemas, at GET /openapi.json, and
 * the Swagger UI reference at GET /docs. Neither route appears in the document itself.
 */
export const openApi = fp<OpenApiOptions>(
  async (app: FastifyInstance, { baseUrl, stagingUrl }) => {
    const responseExamples = createResponseExamples();
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: API_TITLE, version: API_VERSION, description: API_DESCRIPTION },
        // The public operations' server; each staging operation names its own (see withStagingServer).
        servers: [{ url: baseUrl, description: 'Public operations' }],
        tags: API_TAGS,
        components: { securitySchemes: SECURITY_SCHEMES },
      },
      // Shared schemas become components named by their `$id` (never `def-0`).
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === 'string' ? json.$id : `schema${index}`),
      },
      transform: (route) => responseExamples.collect(withStagingServer(withAppWideResponses(route), route.route, stagingUrl)),
      transformObject: (document) =>
        responseExamples.attach(withParameterExamples('openapiObject' in document ? document.openapiObject : document.swaggerObject)),
    });

    await app.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      // The service's title, wordmark and favicon, not the framework's.
      ...DOCS_BRANDING,
      uiConfig: {
        deepLinking: true,
        displayOperationId: true,
        displayRequestDuration: true,
        tryItOutEnabled: false,
        // The page loads and names the document at the address the README gives, not the plugin's own
        // /docs/json: Swagger UI reads `urls` in place of the `url` the plugin sets and cannot be told otherwise.
        urls: [{ url: OPENAPI_PATH, name: OPENAPI_PATH }],
      },
      // Replaces the API's deny-everything policy on the docs routes with what Swagger UI needs:
      // its own scripts and styles, inline style attributes, data: images, and calls to both servers.
      staticCSP: docsContentSecurityPolicy(baseUrl, stagingUrl),
    });

    let documentText: string | undefined;
    app.get(OPENAPI_PATH, { schema: { hide: true } }, async (_request, reply) => {
      documentText ??= JSON.stringify(app.swagger());
      return reply.type('application/json; charset=utf-8').send(documentText);
    });
  },
  { name: 'openapi' },
);

/**
 * Operation-level `servers` on the staging operations (routes with `config.staging`), always, even
 * when STAGING_URL equals BASE_URL: generated clients and the docs page send each operation to its
 * own server only when the document says so per operation; a rule in prose reaches no client.
 */
function withStagingServer<T extends { schema: FastifySchema }>(transformed: T, route: RouteOptions, stagingUrl: string): T {
  if (route.config?.staging !== true || !transformed.schema) return transformed;
  const servers = [{ url: stagingUrl, description: 'Staging operations (access lists, user profile)' }];
  return { ...transformed, schema: { ...transformed.schema, servers } };
}

function docsContentSecurityPolicy(baseUrl: string, stagingUrl: string): Record<string, string> {
  const apiOrigins = [...new Set([new URL(baseUrl).origin, new URL(stagingUrl).origin])].join(' ');
  return {
    'default-src': "'self'",
    'script-src': "'self'",
    'style-src': "'self' 'unsafe-inline'",
    'img-src': "'self' data:",
    'font-src': "'self' data:",
    'connect-src': `'self' ${apiOrigins}`,
    'object-src': "'none'",
    'base-uri': "'self'",
    'form-action': "'self'",
    'frame-ancestors': "'none'",
  };
}
