import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { withConfigTable } from '../../src/docs/config-table.js';
import { ConfigSchema } from '../../src/config.js';

const README = new URL('../../README.md', import.meta.url);

describe('README.md', () => {
  it('lists every configuration variable exactly as the schema defines it (run `npm run docs:config -- --write`)', async () => {
    const readme = await readFile(README, 'utf8');
    expect(readme, 'the configuration table is out of date: run `npm run docs:config -- --write`').toBe(withConfigTable(readme));
    for (const name of Object.keys(ConfigSchema.properties)) expect(readme).toContain(`| \`${name}\` |`);
  });
});
