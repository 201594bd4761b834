import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { limitOffset, limitThroughPage } from '../../src/repositories/paging.js';

const render = (query: Parameters<PgDialect['sqlToQuery']>[0]) => {
  const { sql, params } = new PgDialect().sqlToQuery(query);
  return { sql, params };
};

describe('page clauses', () => {
  it('writes a first page into the statement, so that its generic plan is kept', () => {
    expect(render(limitOffset(10, 0))).toEqual({ sql: 'LIMIT 10', params: [] });
    expect(render(limitThroughPage(25, 0))).toEqual({ sql: 'LIMIT 25', params: [] });
    expect(render(limitOffset(0, 0))).toEqual({ sql: 'LIMIT 0', params: [] });
  });

  it('keeps a deeper page as parameters, so that page numbers make no new statements', () => {
    expect(render(limitOffset(10, 990))).toEqual({ sql: 'LIMIT $1 OFFSET $2', params: [10, 990] });
    expect(render(limitThroughPage(10, 990))).toEqual({ sql: 'LIMIT $1', params: [1000] });
  });

  it('refuses a count that is no whole number, rather than write it into SQL', () => {
    for (const count of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => limitOffset(count, 0), String(count)).toThrow(RangeError);
    }
  });
});
