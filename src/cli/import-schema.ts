import { writeFileSync } from 'node:fs';
import { importJsonSchema } from '../ingest/records.js';

/** `npm run import:schema`: writes docs/import.schema.json from the record schemas (a test keeps it current). */
const path = new URL('../../docs/import.schema.json', import.meta.url);
writeFileSync(path, `${JSON.stringify(importJsonSchema(), null, 2)}\n`);
console.log(`wrote ${path.pathname}`);
