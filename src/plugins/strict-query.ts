import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest } from '../errors.js';

/**
 * The server-wide query rules, applied to every route that declares a
 * querystring schema, before schema validation:
 *
 * - a parameter the schema does not declare is a 400 naming it;
 * - a scalar given twice is a 400 (a list may be repeated; the values are merged);
 * - integers are plain decimal digits (`1e2`, `0x10`, `10.0`, ` 10` are rejected, not coerced);
 * - booleans are `true` or `false`;
 * - list parameters (`type: 'array'` in the schema) are comma-separated, split, trimmed and capped.
 *
 * Ajv then validates the converted values against the same schema (with type coercion off), so
 * the schema stays the one source of every rule and of the OpenAPI document.
 */
export const MAX_LIST_ENTRIES = 50;
const MAX_ECHOED_NAME_LENGTH = 40;

type ParameterKind = 'integer' | 'number' | 'boolean' | 'list' | 'string';

function kindOf(schema: TSchema): ParameterKind {
  switch (schema.type) {
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'list';
    default:
      return 'string';
  }
}

const INTEGER = /^-?[0-9]+$/;
const NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;

/** Names are echoed back in messages; keep them short and printable. */
function printable(name: string): string {
  // eslint-disable-next-line no-control-regex
  const safe = name.replace(/[\u0000-\u001f\u007f]/g, '?');
  return safe.length > MAX_ECHOED_NAME_LENGTH ? `${safe.slice(0, MAX_ECHOED_NAME_LENGTH)}...` : safe;
}

function convert(name: string, kind: ParameterKind, raw: string | string[]): unknown {
  if (kind === 'list') {
    const entries = (Array.isArray(raw) ? raw : [raw]).flatMap((value) => value.split(',')).map((entry) => entry.trim());
    if (entries.length > MAX_LIST_ENTRIES) throw badRequest(`${name} must have at most ${MAX_LIST_ENTRIES} entries`);
    return entries;
  }
  if (Array.isArray(raw)) throw badRequest(`${name} must be given only once`);
  switch (kind) {
    case 'integer':
      if (!INTEGER.test(raw)) throw badRequest(`${name} must be an integer written in decimal digits`);
      return Number(raw);
    case 'number':
      if (!NUMBER.test(raw)) throw badRequest(`${name} must be a decimal number`);
      return Number(raw);
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw badRequest(`${name} must be true or false`);
      return raw === 'true';
    default:
      return raw;
  }
}

export function strictQueryHook(querystring: TSchema): preValidationHookHandler {
  const properties = (querystring.properties ?? {}) as Record<string, TSchema>;
  const kinds = new Map(Object.entries(properties).map(([name, schema]) => [name, kindOf(schema)]));

  const hook: preValidationHookHandler = function enforceQueryRules(request: FastifyRequest, _reply, done) {
    const raw = request.query as Record<string, string | string[]>;
    const converted: Record<string, unknown> = {};
    try {
      for (const name of Object.keys(raw)) {
        const kind = kinds.get(name);
        if (kind === undefined) throw badRequest(`unknown query parameter '${printable(name)}'`);
        converted[name] = convert(name, kind, raw[name] as string | string[]);
      }
    } catch (error) {
      done(error as Error);
      return;
    }
    request.query = converted;
    done();
  };
  return Object.assign(hook, { [STRICT_QUERY]: true });
}

const STRICT_QUERY = Symbol('strict-query');
const isStrictQueryHook = (hook: unknown) => typeof hook === 'function' && STRICT_QUERY in hook;

/** Routes without a querystring schema take no query parameters at all. */
const NO_PARAMETERS: TSchema = Type.Object({});

export const strictQuery = fp(
  (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      const existing = route.preValidation === undefined ? [] : [route.preValidation].flat();
      // Fastify re-announces a GET route as its HEAD twin with the same options: convert only once.
      if (existing.some(isStrictQueryHook)) return;
      const hook = strictQueryHook((route.schema?.querystring as TSchema | undefined) ?? NO_PARAMETERS);
      route.preValidation = [hook, ...existing];
    });
  },
  { name: 'strict-query' },
);
