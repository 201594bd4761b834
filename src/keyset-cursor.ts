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

/** What a cursor may look like on the wire: base64url, bounded (a campaign list's position, with an ID of up to 131 characters, takes 244). */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,256}$';

/** At most 18 digits: always within a bigint, so a forged cursor cannot overflow a cast. */
export const DECIMAL = /^-?[0-9]{1,18}$/;
/** What a position's id may be: a row id, or an address (a leaderboard's entries). */
export const ROW_ID = DECIMAL;
export const ADDRESS_ID = /^0x[0-9a-f]{40}$/;

/**
 * The cursor is opaque to clients: base64url of `v1.<scope>.<key>.<id>`. `scope` ties it to the list
 * it came from (the operation, the campaign, the filters): a cursor of another list is refused
 * rather than answered with rows of the wrong order.
 */
export function encodeCursor(scope: string, position: KeysetPosition): string {
  return encodeCursorFields(scope, [position.key, position.id]);
}

/** The position a cursor names, or a 400 that says why it cannot be read. */
export function decodeCursor(scope: string, cursor: string, idFormat: RegExp = ROW_ID): KeysetPosition {
  const [key, id] = decodeCursorFields(scope, cursor, [DECIMAL, idFormat]) as [string, string];
  return { key, id };
}

/**
 * A cursor of a position with other fields than a key and an id (the campaign list's): base64url of
 * `v1.<scope>.<field>.<field>…`; no field holds a dot.
 */
export function encodeCursorFields(scope: string, fields: readonly string[]): string {
  return Buffer.from(['v1', scopeTag(scope), ...fields].join('.')).toString('base64url');
}

/** The fields of the position a cursor names, one per pattern and each matching it, or a 400 that says why it cannot be read. */
export function decodeCursorFields(scope: string, cursor: string, patterns: readonly RegExp[]): string[] {
  const [version, tag, ...fields] = Buffer.from(cursor, 'base64url').toString('latin1').split('.');
  if (version !== 'v1' || fields.length !== patterns.length || !fields.every((field, index) => patterns[index]!.test(field))) {
    throw badRequest('cursor is not one this service gave: use nextCursor or the Link header of the page before');
  }
  if (tag !== scopeTag(scope)) {
    throw badRequest('cursor belongs to another list: a cursor continues only the walk that gave it, with the same campaign, filters and sort');
  }
  return fields;
}

/** A cursor continues from its own page: with `page` above 1 as well, the request is refused. */
export function refuseCursorWithPage(query: { cursor?: string; page?: number }): void {
  if (query.cursor !== undefined && (query.page ?? 1) > 1) throw badRequest('cursor and page cannot be combined: a cursor continues from its own page');
}

/**
 * What an answer says of the page after it. `cursor`: the cursor of its last row when more rows
 * follow (a page of 0 keeps the cursor it was asked with), else null. `link`, when there is a next
 * page: the `Link` header naming it, `<?cursor=…&pageSize=…&<params>>; rel="next"`, relative to the
 * request's URL so that it holds behind a proxy's path prefix; `params` are the list's other
 * parameters, which the cursor's scope binds.
 */
export function nextPage(
  scope: string,
  page: { more: boolean; last: readonly string[] | undefined; limit: number; cursor: string | undefined; params: Record<string, string> },
): { cursor: string | null; link: string | undefined } {
  const cursor =
    page.more && page.last !== undefined ? encodeCursorFields(scope, page.last) : page.limit === 0 ? (page.cursor ?? null) : null;
  if (!cursor) return { cursor, link: undefined };
  const next = new URLSearchParams({ cursor, pageSize: String(page.limit), ...page.params });
  return { cursor, link: `<?${next.toString()}>; rel="next"` };
}

function scopeTag(scope: string): string {
  return createHash('sha256').update(scope).digest('base64url').slice(0, 11);
}
