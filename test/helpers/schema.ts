import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { expect } from 'vitest';
import { SHARED_SCHEMAS } from '../../src/schemas/index.js';

// A CommonJS module: Node's ESM loader hands over its exports object, whose `default` is the plugin;
// TypeScript types it either way, by module resolution.
type FormatsPlugin = typeof ajvFormats extends { default: infer Plugin } ? Plugin : typeof ajvFormats;
const addFormats = ('default' in ajvFormats ? ajvFormats.default : ajvFormats) as FormatsPlugin;

/**
 * The API contract as a test oracle: a response that passes holds exactly the declared fields
 * (every object schema forbids additional properties) in the declared types and formats.
 */
const ajv = new Ajv({ keywords: ['errorMessage'], allErrors: true, strict: false, discriminator: true });
addFormats(ajv);
for (const schema of SHARED_SCHEMAS) ajv.addSchema(schema);

const validators = new Map<string, ValidateFunction>();

export function expectToMatchSchema(value: unknown, schemaId: string): void {
  let validate = validators.get(schemaId);
  if (!validate) {
    validate = ajv.getSchema(schemaId);
    if (!validate) throw new Error(`no shared schema with $id ${schemaId}`);
    validators.set(schemaId, validate);
  }
  const valid = validate(value);
  expect(valid, `${schemaId}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 2000)}`).toBe(true);
}
