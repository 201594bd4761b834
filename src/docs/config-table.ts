import type { TSchema } from '@sinclair/typebox';
import { ConfigSchema } from '../config.js';

/**
 * The configuration table of docs/configuration.md, generated from the one schema of the environment,
 * so that the documentation lists exactly the variables the service reads, with their real defaults.
 */
export const CONFIG_TABLE_START = '<!-- config-table:start (npm run docs:config -- --write) -->';
export const CONFIG_TABLE_END = '<!-- config-table:end -->';

export function configTable(): string {
  const rows = Object.entries(ConfigSchema.properties as Record<string, TSchema>).map(([name, schema]) => {
    const fallback = schema.default === undefined || schema.default === '' ? '(unset)' : `\`${String(schema.default)}\``;
    return `| \`${name}\` | ${typeName(schema)} | ${fallback} | ${escapeCell(String(schema.description ?? ''))} |`;
  });
  return ['| Variable | Type | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

function typeName(schema: TSchema): string {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as TSchema[]).map((member) => String(member.const)).join(' \\| ');
  if ((schema.type === 'integer' || schema.type === 'number') && schema.minimum !== undefined && schema.maximum !== undefined) {
    return `${String(schema.type)} ${String(schema.minimum)}–${String(schema.maximum)}`;
  }
  return String(schema.type);
}

const escapeCell = (text: string) => text.replace(/\|/g, '\\|');

/** The document that holds the generated table, relative to the repository's root. */
export const CONFIG_DOCUMENT = 'docs/configuration.md';

/** `markdown` with the block between the markers replaced by the current table. */
export function withConfigTable(markdown: string): string {
  const start = markdown.indexOf(CONFIG_TABLE_START);
  const end = markdown.indexOf(CONFIG_TABLE_END);
  if (start === -1 || end < start) throw new Error(`${CONFIG_DOCUMENT} has no ${CONFIG_TABLE_START} ... ${CONFIG_TABLE_END} block`);
  return `${markdown.slice(0, start + CONFIG_TABLE_START.length)}\n${configTable()}\n${markdown.slice(end)}`;
}
