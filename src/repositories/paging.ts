import { type SQL, sql } from 'drizzle-orm';

/**
 * `LIMIT n OFFSET m` for `n` rows after the first `m`. A first page (`m` = 0), what most requests
 * ask for, is written into the statement as `LIMIT n` with `n` a literal: with LIMIT and OFFSET as
 * parameters the planner prices a prepared statement's generic plan for a tenth of the rows, finds
 * it dearer than the plan for the values at hand, and so plans the statement again on every request,
 * a large share of a list page's PostgreSQL time; with a literal limit the generic plan is the
 * same plan at the same price, and PostgreSQL keeps it. Page sizes are at most a few hundred values,
 * so the statements this makes are few; deeper pages keep their parameters.
 */
export function limitOffset(limit: number, offset: number): SQL {
  if (offset === 0) return sql.raw(`LIMIT ${literalCount(limit)}`);
  return sql`LIMIT ${limit} OFFSET ${offset}`;
}

/** `LIMIT` for the rows up to the end of the page (`m` + `n`): a literal on a first page, as above. */
export function limitThroughPage(limit: number, offset: number): SQL {
  if (offset === 0) return sql.raw(`LIMIT ${literalCount(limit)}`);
  return sql`LIMIT ${offset + limit}`;
}

function literalCount(count: number): number {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`a row count must be a whole number >= 0, not ${count}`);
  return count;
}
