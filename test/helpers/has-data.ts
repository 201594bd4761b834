/** An answer with data: a non-empty list, or an object with a non-empty list, or with fields and no list at all. */
export function hasData(body: unknown): boolean {
  if (Array.isArray(body)) return body.length > 0;
  if (body === null || typeof body !== 'object') return false;
  const values = Object.values(body);
  const lists = values.filter(Array.isArray);
  return lists.length > 0 ? lists.some((list) => list.length > 0) : values.length > 0;
}
