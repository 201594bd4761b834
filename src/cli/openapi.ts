import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generateOpenApiDocument } from './openapi-document.js';

/** `npm run openapi`: writes the API document to openapi.json at the repository root, without listening. */
const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
try {
  await writeFile(target, await generateOpenApiDocument());
  console.log(`wrote ${target}`);
} catch (error) {
  console.error(`openapi export failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
