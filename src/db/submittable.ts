/**
 * A query object with its own `submit` (a pg-copy-streams stream, a cursor): node-postgres runs it
 * as it is, so the wrappers in this folder pass it through untouched.
 */
export function isSubmittable(config: unknown): boolean {
  return typeof config === 'object' && config !== null && typeof (config as { submit?: unknown }).submit === 'function';
}
