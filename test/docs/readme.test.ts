import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('README.md', () => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');

  it('stays a page for the people who use the service: at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('has no table row outside its table (a row after a blank or prose line renders as text)', () => {
    const lines = readme.split('\n');
    const stray = lines.filter(
      (line, index) => line.startsWith('|') && !lines[index - 1]?.startsWith('|') && !/^\|[\s:|-]+\|$/.test(lines[index + 1] ?? ''),
    );
    expect(stray).toEqual([]);
  });

  it('lists the error statuses the API document lists, no more and no fewer', () => {
    const statusesOf = (text: string) => [...new Set(text.match(/\b[45]\d\d\b/g))].sort();
    const bullet = /^- \*\*Errors\*\*:([\s\S]*?)^- \*\*/m.exec(readme)?.[1];
    expect(bullet, 'README.md has no Errors bullet').toBeDefined();
    const document = JSON.parse(readFileSync(`${ROOT}openapi.json`, 'utf8')) as { info: { description: string } };
    const table = [...document.info.description.matchAll(/^\| (\d{3}) \|/gm)].map((row) => row[1]!).join(' ');
    expect(statusesOf(bullet!)).toEqual(statusesOf(table));
  });

  it('names every entry of src/ in its project layout', () => {
    const layout = /## Project layout\n+```\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(layout, 'README.md has no project layout block').toBeDefined();
    const named = new Set(layout!.match(/[\w.-]+\/?/g));
    const missing = readdirSync(`${ROOT}src`, { withFileTypes: true })
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
      .filter((name) => !named.has(name));
    expect(missing).toEqual([]);
  });
});
