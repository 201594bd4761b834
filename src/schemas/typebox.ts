import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * A `$ref` to a schema registered with `app.addSchema`, typed as the schema itself.
 * References keep each reusable schema a named OpenAPI component instead of an inlined copy.
 */
export const ref = <T extends TSchema>(schema: T) => {
  if (!schema.$id) throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id));
};

/** A string enum as JSON Schema `enum` (one readable validation error, a plain OpenAPI enum). */
export const StringEnum = <const Values extends readonly string[]>(
  values: Values,
  options: Record<string, unknown> = {},
) => Type.Unsafe<Values[number]>({ type: 'string', enum: [...values], ...options });

export const Nullable = <T extends TSchema>(schema: T, options: Record<string, unknown> = {}) =>
  Type.Union([schema, Type.Null()], options);
