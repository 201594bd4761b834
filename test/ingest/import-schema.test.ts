import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { importJsonSchema } from '../../src/ingest/records.js';
import { baseRecords } from '../helpers/records.js';

/** docs/import.schema.json is generated from the record schemas (npm run import:schema) and says what import accepts. */
describe('docs/import.schema.json', () => {
  const committed = JSON.parse(readFileSync(new URL('../../docs/import.schema.json', import.meta.url), 'utf8')) as unknown;

  it('equals the schema generated from src/ingest/records.ts (run npm run import:schema after changing a record)', () => {
    expect(committed).toEqual(importJsonSchema());
  });

  it('accepts every kind of record and deletion, and refuses what the importer refuses', () => {
    const validate = new Ajv2020({ strict: false }).compile(committed as object);
    for (const record of baseRecords()) expect(validate(record), JSON.stringify(record)).toBe(true);
    expect(validate({ kind: 'claim', deleted: true, chainId: 8453, txHash: `0x${'1'.repeat(64)}`, logIndex: 0 })).toBe(true);
    expect(validate({ ...baseRecords().at(-1), amount: '1'.repeat(79) })).toBe(false);
    expect(validate({ kind: 'campaing' })).toBe(false);
  });
});
