import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type CompileOptions = Parameters<ReturnType<SerializerFactory>>[0];

/**
 * Fastify's response serializer compiler, with the compiled functions shared: every route declares
 * the same error responses and many the same 200 schemas (`$ref`s to the shared components), and
 * fast-json-stringify's compilation is slow next to a request. Keyed by the schema and the set of shared
 * schemas it may reference, so an identical schema compiles once per process (an app built again,
 * as the tests do, reuses them). Components are constants of the code (src/schemas), so the same
 * `$id`s always mean the same schemas.
 */
const compiled = new Map<string, (data: unknown) => string>();
const defaultFactory: SerializerFactory = SerializerSelector();

export function cachingSerializerFactory(externalSchemas: unknown, serializerOpts: unknown) {
  const compile = defaultFactory(externalSchemas, serializerOpts as never);
  const externals = JSON.stringify(Object.keys((externalSchemas ?? {})).sort());
  const options = JSON.stringify(serializerOpts ?? {});
  return (request: CompileOptions) => {
    const key = `${externals}\n${options}\n${JSON.stringify(request.schema)}`;
    let serializer = compiled.get(key);
    if (serializer === undefined) {
      serializer = compile(request) as (data: unknown) => string;
      compiled.set(key, serializer);
    }
    return serializer;
  };
}
