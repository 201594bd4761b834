import { errorExample } from './error-examples.js';

/**
 * Response examples, written by routes the JSON Schema way (`examples: [...]` beside the response's
 * `$ref`), shown where OpenAPI readers look for them: the media type's `example`.
 *
 * @fastify/swagger drops every sibling of a `$ref`, so `collect` takes the examples out of each
 * route's response schemas before conversion and `attach` puts them on the finished operations,
 * with the example of each error status that has none of its own (error-examples.ts).
 */
type Responses = Record<string, { examples?: unknown[] } & Record<string, unknown>>;
type Operation = { operationId?: string; responses?: Record<string, { content?: Record<string, { example?: unknown }> }> };

export function createResponseExamples() {
  const byOperation = new Map<string, Map<string, unknown>>();

  return {
    collect<T extends { schema: { operationId?: string; response?: unknown } }>(transformed: T): T {
      const { operationId, response } = transformed.schema ?? {};
      if (!operationId || !response) return transformed;
      const examples = new Map<string, unknown>();
      const stripped: Responses = {};
      for (const [status, { examples: list, ...rest }] of Object.entries(response as Responses)) {
        if (list?.length) examples.set(status, list[0]);
        stripped[status] = rest;
      }
      byOperation.set(operationId, examples);
      return { ...transformed, schema: { ...transformed.schema, response: stripped } };
    },

    attach<D>(document: D): D {
      const paths = (document as { paths?: Record<string, Record<string, Operation>> }).paths ?? {};
      for (const operations of Object.values(paths)) {
        for (const operation of Object.values(operations)) {
          const examples = byOperation.get(operation.operationId ?? '');
          for (const [status, response] of Object.entries(operation.responses ?? {})) {
            const example = examples?.get(status) ?? errorExample(operation.operationId ?? '', status);
            if (example === undefined) continue;
            for (const media of Object.values(response.content ?? {})) media.example = example;
          }
        }
      }
      return document;
    },
  };
}
