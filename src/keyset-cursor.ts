import { createHash } from 'node:crypto';
import { badRequest } from './errors.js';

/**
 * Where a walk through a list in a fixed order stands: the sort key and the unique id of the last
 * row it returned. The next page starts strictly after it, so rows written or deleted meanwhile
 * never make the walk skip or repeat a row that existed throughout.
 */
export interface KeysetPosition {
  /** The last row's sort key, as an exact decimal (a claim's time in microseconds). */
  key: string;
  /** The last row's unique id (a decimal, or an address), which breaks ties on the key. */
  id: string;
}

/** What a cursor may look like on the wire: base64url, bounded. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,200}$';

/** At most 18 digits: always within a bigint, so a forged cursor cannot overflow a cast. */
const DECIMAL = /^-?[0-9]{1,18}$/;
/** What a position's id may be: a row id, or an address (a leaderboard's entries). */
export const ROW_ID = DECIMAL;
export const ADDRESS_ID = /^0x[0-9a-f]{40}$/;

/**
 * The cursor is opaque to clients: base64url of `v1.<scope>.<key>.<id>`. `scope` ties it to the list
 * it came from (the operation, the campaign, the filters): a cursor of another list is refused
 * rather than answered with rows of the wrong order.
 */
export function encodeCursor(scope: string, position: KeysetPosition): string {
  return Buffer.from(`v1.${scopeTag(scope)}.${position.key}.${position.id}`).toString('base64url');
}

/** The position a cursor names, or a 400 that says why it cannot be read. */
export function decodeCursor(scope: string, cursor: string, idFormat: RegExp = ROW_ID): KeysetPosition {
  const [version, tag, key, id, ...rest] = Buffer.from(cursor, 'base64url').toString('latin1').split('.');
  if (version !== 'v1' || rest.length > 0 || key === undefined || id === undefined || !DECIMAL.test(key) || !idFormat.test(id)) {
    throw badRequest('cursor is not one this service gave: use nextCursor or the Link header of the page before');
  }
  if (tag !== scopeTag(scope)) {
    throw badRequest('cursor belongs to another list: a cursor continues the walk, with the same campaign and filters, that gave it');
  }
  return { key, id };
}

function scopeTag(scope: string): string {
  return createHash('sha256').update(scope).digest('base64url').slice(0, 11);
}
