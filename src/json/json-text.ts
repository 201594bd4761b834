/**
 * JSON text of a `T` that the database serialized once (see `campaign_documents`). Routes send it
 * as it is: parsing and re-serializing it per request would cost more than the query.
 */
export type JsonText<T> = string & { readonly __jsonOf?: T };

/** Where a stored document leaves room for a field claims change (see `campaign_live`). */
const PLACEHOLDER = '\u0001';

/**
 * A stored document with its placeholders filled, in order, by the fields claims change: those of
 * each incentive that has them, then the campaign's totals (`campaign_live`), given as one text
 * separated by the same placeholder character.
 */
export function withLiveFields(document: string, live: string): string {
  const parts = document.split(PLACEHOLDER);
  const fields = live.split(PLACEHOLDER);
  if (parts.length !== fields.length + 1) {
    throw new Error(`a stored document has ${parts.length - 1} placeholders for ${fields.length} live fields`);
  }
  let filled = parts[0]!;
  for (let index = 0; index < fields.length; index++) filled += fields[index]! + parts[index + 1]!;
  return filled;
}

/**
 * Adds `isActive` to a stored document. It is the one field that depends on the clock rather than
 * on the data, so it is decided per request and never stored.
 */
export function withIsActive<T>(document: string, isActive: boolean): JsonText<T> {
  return `${document.slice(0, -1)},"isActive":${isActive}}` as JsonText<T>;
}
