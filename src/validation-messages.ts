import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

/**
 * Turns Ajv's first error into a sentence that names the parameter and the rule in words:
 * `pageSize must be <= 100`, `owner must be an address: 0x followed by 40 hexadecimal characters`.
 * Never a regular expression: a schema states the words for its pattern in `errorMessage`.
 */
export function describeValidationError(error: FastifySchemaValidationError, dataVar: string): string {
  const name = parameterName(error.instancePath, dataVar);
  const params = error.params;
  const parentSchema = (error as { parentSchema?: Record<string, unknown> }).parentSchema;
  const custom = typeof parentSchema?.errorMessage === 'string' ? parentSchema.errorMessage : undefined;

  switch (error.keyword) {
    case 'required':
      return `${String(params.missingProperty)} is required`;
    case 'dependencies':
      return `${String(params.property)} requires ${String(params.missingProperty)}`;
    case 'additionalProperties':
      return `unknown ${dataVar === 'querystring' ? 'query parameter' : 'field'} '${String(params.additionalProperty)}'`;
    case 'type':
      return `${name} must be ${article(String(params.type))}`;
    case 'enum':
      return `${name} must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `${name} must be ${String(params.allowedValue)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${name} must be ${String(params.comparison)} ${String(params.limit)}`;
    case 'minLength':
      return params.limit === 1 ? `${name} must not be empty` : `${name} must be at least ${String(params.limit)} characters long`;
    case 'maxLength':
      return `${name} must be at most ${String(params.limit)} characters long`;
    case 'maxItems':
      return `${name} must have at most ${String(params.limit)} entries`;
    case 'minItems':
      return `${name} must have at least ${String(params.limit)} entries`;
    case 'pattern':
    case 'format':
      return `${name} ${custom ?? 'is not in the expected format'}`;
    default:
      return `${name} ${custom ?? 'is invalid'}`;
  }
}

/** `/tokens/2` in the querystring reads as `tokens entry 3`. */
function parameterName(instancePath: string, dataVar: string): string {
  const [first, ...rest] = instancePath.split('/').slice(1);
  if (first === undefined || first === '') return dataVar;
  const index = rest[0];
  return index !== undefined && /^[0-9]+$/.test(index) ? `${first} entry ${Number(index) + 1}` : first;
}

function article(type: string): string {
  const words: Record<string, string> = {
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
    string: 'a string',
    array: 'a list',
    object: 'an object',
  };
  return type.split(',').map((part) => words[part] ?? part).join(' or ');
}
