import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCUMENT, CONFIG_TABLE_END, CONFIG_TABLE_START, withConfigTable } from '../../src/docs/config-table.js';
import { ConfigSchema } from '../../src/config.js';

const DOCUMENT = new URL(`../../${CONFIG_DOCUMENT}`, import.meta.url);

describe(CONFIG_DOCUMENT, () => {
  it('lists every configuration variable exactly as the schema defines it (run `npm run docs:config -- --write`)', async () => {
    const markdown = await readFile(DOCUMENT, 'utf8');
    expect(markdown, 'the configuration table is out of date: run `npm run docs:config -- --write`').toBe(withConfigTable(markdown));
    const table = markdown.slice(markdown.indexOf(CONFIG_TABLE_START), markdown.indexOf(CONFIG_TABLE_END));
    for (const name of Object.keys(ConfigSchema.properties)) expect(table).toContain(`| \`${name}\` |`);
  });

  it('is the one copy of the table: the README links to it instead', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).not.toContain(CONFIG_TABLE_START);
    expect(readme).toContain('docs/configuration.md');
  });
});
