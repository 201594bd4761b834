/**
 * Finishing touches on the generated document's parameters, for readers and for the docs page's
 * "Try it out":
 *
 * - a required parameter shows a value of the demo data (demo-examples.ts), or else its schema's
 *   example, so that "Try it out" answers with data on the first click;
 * - an optional parameter shows none: the docs page would fill it in, and a filter nobody chose
 *   narrows the answer to nothing;
 * - list parameters are comma-separated (`style: form, explode: false`), as the server reads them.
 */
import { REQUIRED_PARAMETER_EXAMPLES } from './demo-examples.js';


interface SchemaObject {
  $ref?: string;
  type?: string;
  items?: SchemaObject;
  example?: unknown;
  examples?: unknown[];
  enum?: unknown[];
  default?: unknown;
}

interface ParameterObject {
  in: string;
  name: string;
  required?: boolean;
  schema?: SchemaObject;
  example?: unknown;
  examples?: unknown;
  style?: string;
  explode?: boolean;
}

interface Document {
  paths?: Record<string, Record<string, { operationId?: string; parameters?: ParameterObject[] }>>;
  components?: { schemas?: Record<string, SchemaObject> };
}

export function withParameterExamples<T>(document: T): T {
  const { paths = {}, components = {} } = document as Document;
  const schemas = components.schemas ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.schema?.type === 'array') {
          parameter.style = 'form';
          parameter.explode = false;
        }
        if (!parameter.required) {
          delete parameter.example;
          delete parameter.examples;
          continue;
        }
        const example = REQUIRED_PARAMETER_EXAMPLES[operation.operationId ?? '']?.[parameter.name] ?? exampleOf(parameter.schema, schemas);
        if (example !== undefined) parameter.example = example;
      }
    }
  }
  return document;
}

function exampleOf(schema: SchemaObject | undefined, schemas: Record<string, SchemaObject>, depth = 0): unknown {
  if (schema === undefined || depth > 5) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.$ref) return exampleOf(schemas[schema.$ref.split('/').pop() ?? ''], schemas, depth + 1);
  if (schema.type === 'array') {
    const item = exampleOf(schema.items, schemas, depth + 1);
    return item === undefined ? undefined : [item];
  }
  if (schema.enum?.length) return schema.enum[0];
  return schema.default;
}
