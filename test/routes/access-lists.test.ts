import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertAccessList, insertAccessListMembers, insertApiToken, insertUser } from '../helpers/factories.js';

interface Item {
  id: string;
  name: string;
  memberCount: number;
  createdAt: string;
  icon: string;
}
interface Page {
  accesslists: Item[];
  totalAccesslists: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2025-03-10T12:00:00.000Z');

/** The owner's lists: name, age in days, members. Two share a member count; two share a creation time. */
const OWNER_LISTS: [string, number, number][] = [
  ['1000 club', 6, 1],
  ['Early Supporters', 5, 3],
  ['early birds', 4, 10],
  ['100% Loyal', 3, 0],
  ['snake_case fans', 2, 3],
  ['snakeXcase', 2, 5],
];

describe('GET /campaigns/accesslists', () => {
  let database: TestDatabase;
  let app: App;
  let owner: { id: string };
  let ownerToken: string;
  let otherToken: string;
  let otherUserId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    owner = await insertUser(database.db);
    ({ token: ownerToken } = await insertApiToken(database.db, owner.id));
    for (const [name, ageDays, members] of OWNER_LISTS) {
      const list = await insertAccessList(database.db, { ownerUserId: owner.id, name, createdAt: new Date(NOW - ageDays * DAY_MS) });
      await insertAccessListMembers(database.db, list.id, members);
    }
    const other = await insertUser(database.db);
    otherUserId = other.id;
    ({ token: otherToken } = await insertApiToken(database.db, other.id));
    const foreign = await insertAccessList(database.db, { ownerUserId: other.id, name: 'Early adopters', createdAt: new Date(NOW) });
    await insertAccessListMembers(database.db, foreign.id, 7);
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const get = (query = '', token = ownerToken) =>
    app.inject({ url: `/campaigns/accesslists${query}`, headers: { authorization: `Bearer ${token}` } });

  async function page(query = '', token = ownerToken): Promise<Page> {
    const response = await get(query, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Page>();
  }
  const names = (result: Page) => result.accesslists.map((item) => item.name);

  /** Ties on the sort key come out by id, ascending. */
  const byIdWithin = (items: Item[], key: (item: Item) => number, direction: 1 | -1) =>
    [...items].sort((a, b) => direction * (key(a) - key(b)) || (a.id < b.id ? -1 : 1)).map((item) => item.name);

  it('lists the caller’s lists newest first with every field, uncached', async () => {
    const response = await get();
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('private, no-store');
    const result = response.json<Page>();
    expect(result.totalAccesslists).toBe(6);
    const ages = result.accesslists.map((item) => Date.parse(item.createdAt));
    expect(ages).toEqual([...ages].sort((a, b) => b - a));
    expect(names(result).slice(2)).toEqual(['100% Loyal', 'early birds', 'Early Supporters', '1000 club']);
    expect(result.accesslists.find((item) => item.name === 'early birds')).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      name: 'early birds',
      memberCount: 10,
      createdAt: new Date(NOW - 4 * DAY_MS).toISOString(),
      icon: 'https://assets.example.com/icons/star.svg',
    });
    // Same creation time: the id decides.
    const tied = result.accesslists.slice(0, 2);
    expect(names(result).slice(0, 2)).toEqual(byIdWithin(tied, () => 0, 1));
  });

  it('reverses the creation order with order=ASC', async () => {
    const result = await page('?order=ASC');
    expect(names(result).slice(0, 4)).toEqual(['1000 club', 'Early Supporters', 'early birds', '100% Loyal']);
  });

  it('sorts by member count in both orders, ties broken on id', async () => {
    const descending = await page('?sortBy=totalMembers');
    expect(descending.accesslists.map((item) => item.memberCount)).toEqual([10, 5, 3, 3, 1, 0]);
    expect(names(descending)).toEqual(byIdWithin(descending.accesslists, (item) => item.memberCount, -1));
    expect(await page('?sortBy=totalMembers&order=DESC')).toEqual(descending);

    const ascending = await page('?sortBy=totalMembers&order=ASC');
    expect(ascending.accesslists.map((item) => item.memberCount)).toEqual([0, 1, 3, 3, 5, 10]);
    expect(names(ascending)).toEqual(byIdWithin(ascending.accesslists, (item) => item.memberCount, 1));
  });

  it('searches names case-insensitively, only among the caller’s lists', async () => {
    const result = await page('?search=EARLY');
    expect(names(result).sort()).toEqual(['Early Supporters', 'early birds']);
    expect(result.totalAccesslists).toBe(2);
    expect(await page('?search=nothing%20like%20this')).toEqual({ accesslists: [], totalAccesslists: 0 });
  });

  it('matches % and _ literally, never as wildcards', async () => {
    expect(names(await page(`?search=${encodeURIComponent('100%')}`))).toEqual(['100% Loyal']);
    expect(names(await page(`?search=${encodeURIComponent('%')}`))).toEqual(['100% Loyal']);
    expect(names(await page('?search=snake_'))).toEqual(['snake_case fans']);
    expect(names(await page('?search=_'))).toEqual(['snake_case fans']);
    expect(await page(`?search=${encodeURIComponent('\\')}`)).toEqual({ accesslists: [], totalAccesslists: 0 });
  });

  it('pages without overlap, with the total on every page', async () => {
    const all = names(await page('?sortBy=totalMembers&pageSize=100'));
    const pages = await Promise.all([1, 2, 3].map((number) => page(`?sortBy=totalMembers&pageSize=2&page=${number}`)));
    expect(pages.flatMap(names)).toEqual(all);
    expect(pages.map((result) => result.totalAccesslists)).toEqual([6, 6, 6]);
    expect(await page('?sortBy=totalMembers&pageSize=2&page=0')).toEqual(pages[0]);
    expect(await page('?pageSize=0')).toEqual({ accesslists: [], totalAccesslists: 6 });
    expect(await page('?page=4&pageSize=2')).toEqual({ accesslists: [], totalAccesslists: 6 });
    expect((await page()).accesslists).toHaveLength(6); // default pageSize 10
  });

  it('defaults userId to the caller, accepts the caller’s own id in any case, refuses any other with 403', async () => {
    const own = await page();
    expect(await page(`?userId=${owner.id}`)).toEqual(own);
    expect(await page(`?userId=${owner.id.toUpperCase()}`)).toEqual(own);

    for (const userId of [otherUserId, randomUUID()]) {
      const response = await get(`?userId=${userId}`);
      expect(response.statusCode).toBe(403);
      expect(response.headers['cache-control']).toBe('private, no-store');
      expect(response.json()).toEqual({ error: "userId must be your own user id: a token may only read its own user's access lists" });
    }
    expect(names(await page('', otherToken))).toEqual(['Early adopters']);
  });

  it('requires a bearer token', async () => {
    const response = await app.inject({ url: '/campaigns/accesslists' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(Object.keys(response.json<object>())).toEqual(['error']);
  });

  const SEARCH_RULE = "search must not contain any of the characters : & | ' ! ( ) < > or control characters";

  it.each([...":&|'!()<>"])('refuses the search character %s with a 400 naming the rule', async (character) => {
    const response = await get(`?search=${encodeURIComponent(`a${character}b`)}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: SEARCH_RULE });
  });

  it.each(['\u0000', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f', '\u0085', '\u009f'])(
    'refuses the control character U+%s in a search',
    async (character) => {
      const response = await get(`?search=${encodeURIComponent(`early${character}`)}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: SEARCH_RULE });
    },
  );

  it('accepts a search of exactly 100 characters, in code points', async () => {
    expect((await get(`?search=${'a'.repeat(100)}`)).statusCode).toBe(200);
    expect((await get(`?search=${encodeURIComponent('é'.repeat(100))}`)).statusCode).toBe(200);
  });

  it.each([
    ['search=', 'search must not be empty'],
    [`search=${'a'.repeat(101)}`, 'search must be at most 100 characters long'],
    ['search=a&search=b', 'search must be given only once'],
    ['userId=me', 'userId must be a user id (a UUID)'],
    ['userId=0x5eed00000000000000000000000000000000c0de', 'userId must be a user id (a UUID)'],
    ['sortBy=members', 'sortBy must be one of: totalMembers'],
    ['sortBy=totalmembers', 'sortBy must be one of: totalMembers'],
    ['order=asc', 'order must be one of: ASC, DESC'],
    ['order=ASC&order=DESC', 'order must be given only once'],
    ['page=-1', 'page must be >= 0'],
    ['page=1.5', 'page must be an integer written in decimal digits'],
    ['page=100001', 'page must be <= 100000'],
    ['pageSize=101', 'pageSize must be <= 100'],
    ['pageSize=ten', 'pageSize must be an integer written in decimal digits'],
    ['pagesize=10', "unknown query parameter 'pagesize'"],
    ['access_token=x', "unknown query parameter 'access_token'"],
  ])('?%s is a 400: %s', async (query, message) => {
    const response = await get(`?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ error: message });
  });
});

describe('/campaigns/accesslists beside /campaigns/:id', () => {
  it('is matched by the static route, not taken as a campaign id', async () => {
    const database = await createTestDatabase();
    const app = await buildTestApp(database);
    try {
      const user = await insertUser(database.db);
      const { token } = await insertApiToken(database.db, user.id);
      const listed = await app.inject({ url: '/campaigns/accesslists', headers: { authorization: `Bearer ${token}` } });
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual({ accesslists: [], totalAccesslists: 0 });
      expect((await app.inject({ url: '/campaigns/accesslists' })).statusCode).toBe(401);
      // One letter less is a (malformed) campaign id for the public route.
      const other = await app.inject({ url: '/campaigns/accesslist' });
      expect(other.statusCode).toBe(400);
      expect(other.json<{ error: string }>().error).toMatch(/^id must be a campaign ID/);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
