import { ConfigSchema } from './config.js';

/**
 * A setting's default as the API document words it for a frontend developer, who needs the value
 * an operator leaves unchanged, not only the name of the variable that changes it. Read from the
 * configuration schema, so that the document follows when a default changes.
 */
type Setting = keyof typeof ConfigSchema.properties;

/** A count with thousands separators, or for a duration in milliseconds whole minutes, whole seconds or milliseconds, with the unit. */
export function settingDefault(name: Setting): string {
  const value: unknown = (ConfigSchema.properties[name] as { default?: unknown }).default;
  if (typeof value !== 'number') throw new Error(`${name} has no numeric default to document`);
  if (!name.endsWith('_MS')) return value.toLocaleString('en-US');
  if (value % 60_000 === 0) return `${value / 60_000} min`;
  if (value % 1000 === 0) return `${value / 1000} s`;
  return `${value} ms`;
}

