/**
 * JSON text of a `T` that the database serialized once (see `campaign_documents`). Routes send it
 * as it is: parsing and re-serializing it per request would cost more than the query.
 */
export type JsonText<T> = string & { readonly __jsonOf?: T };

/**
 * Adds `isActive` to a stored document. It is the one field that depends on the clock rather than
 * on the data, so it is decided per request and never stored.
 */
export function withIsActive<T>(document: string, isActive: boolean): JsonText<T> {
  return `${document.slice(0, -1)}, "isActive": ${isActive}}` as JsonText<T>;
}

/** A JSON array of already serialized elements. */
export function jsonArray(elements: readonly string[]): string {
  return `[${elements.join(', ')}]`;
}
