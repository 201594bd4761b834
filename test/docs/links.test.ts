import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link and anchor in README.md, CHANGELOG.md and docs/*.md leads somewhere: a linked file exists
 * (relative to the file that links it), and a `#anchor` (alone, or after a Markdown file) names a
 * heading of that file as GitHub slugs it. Links to other sites (http, https, mailto) are not
 * followed.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const FILES = [join(ROOT, 'README.md'), join(ROOT, 'CHANGELOG.md'), ...readdirSync(DOCS).filter((name) => name.endsWith('.md')).map((name) => join(DOCS, name))];

/** GitHub's heading slug: lowercase, punctuation dropped (hyphens, underscores and spaces kept), each space a hyphen. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image in a heading counts by its text
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The lines of `markdown` outside fenced code blocks, with their line numbers (1-based). */
function proseLines(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker) {
      fence = marker;
    } else {
      lines.push({ line: index + 1, text });
    }
  });
  return lines;
}

/** The anchors a Markdown file offers: its headings' slugs (a repeated slug gets -1, -2, ...) and explicit `<a id>`/`<a name>`. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(match[1]!);
  }
  return found;
}

/** Inline links and images `[text](target)` outside code blocks and code spans. */
function links(markdown: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/(`+)[\s\S]*?\1/g, '');
    for (const match of prose.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ line, target: match[1]!.replace(/^<|>$/g, '') });
    }
  }
  return found;
}

/** Why `target`, linked from `file`, leads nowhere; undefined when it leads somewhere. */
function brokenBecause(file: string, target: string): string | undefined {
  if (/^(https?:|mailto:)/i.test(target)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return `a link with scheme ${target.split(':')[0]}: not checked, use http(s) or a relative path`;
  const hash = target.indexOf('#');
  const path = decodeURIComponent((hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, ''));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const linked = path === '' ? file : path.startsWith('/') ? join(ROOT, path) : resolve(dirname(file), path);
  if (!existsSync(linked)) return `${relative(ROOT, linked)} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!linked.endsWith('.md') || statSync(linked).isDirectory()) return undefined; // #L10 in code and the like: GitHub's, not checked
  if (!anchors(readFileSync(linked, 'utf8')).has(anchor)) return `${relative(ROOT, linked)} has no heading #${anchor}`;
  return undefined;
}

describe('links in README.md and docs/*.md', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Reads while claims are written (live data)')).toBe('reads-while-claims-are-written-live-data');
    expect(slug('Measured (npm run bench, 100,000 campaigns / 1,000,000 claims, cache off)')).toBe(
      'measured-npm-run-bench-100000-campaigns--1000000-claims-cache-off',
    );
    expect(slug("The server's `DB_POOL_MODE`: **session** or [transaction](#x)")).toBe('the-servers-db_pool_mode-session-or-transaction');
    expect([...anchors('# A\n\n## A\n\n```\n# not a heading\n```\n\n### A\n')]).toEqual(['a', 'a-1', 'a-2']);
  });

  it('finds links, not code', () => {
    expect(links('[a](b.md) `[c](d.md)` ![e](f.png "title")\n```\n[g](h.md)\n```\n').map((link) => link.target)).toEqual(['b.md', 'f.png']);
    expect(brokenBecause(join(ROOT, 'README.md'), 'docs/no-such-file.md')).toBe('docs/no-such-file.md does not exist');
    expect(brokenBecause(join(ROOT, 'README.md'), '#no-such-heading')).toBe('README.md has no heading #no-such-heading');
    expect(brokenBecause(join(ROOT, 'README.md'), 'https://example.com/#anything')).toBeUndefined();
  });

  for (const file of FILES) {
    it(`every relative link and anchor in ${relative(ROOT, file)} leads somewhere`, () => {
      const broken = links(readFileSync(file, 'utf8')).flatMap(({ line, target }) => {
        const reason = brokenBecause(file, target);
        return reason ? [`${relative(ROOT, file)}:${line}: (${target}) ${reason}`] : [];
      });
      expect(broken).toEqual([]);
    });
  }
});
