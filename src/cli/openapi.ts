import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseCommandLine, runCommand } from './command-line.js';
import { generateOpenApiDocument } from './openapi-document.js';

const USAGE = `Usage: npm run openapi

Writes the API document to openapi.json at the repository root, without a database or a listening
server. Takes no arguments.`;

async function main(): Promise<void> {
  if (!parseCommandLine(USAGE, {})) return;
  const target = fileURLToPath(new URL('../../openapi.json', import.meta.url));
  await writeFile(target, await generateOpenApiDocument());
  console.log(`wrote ${target}`);
}

runCommand(USAGE, 'openapi export failed', main);
