import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { erc20Incentive, insertCampaign, insertToken } from '../helpers/factories.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');

describe('response cache', () => {
  let database: TestDatabase;
  let app: App;
  let clock = NOW;
  let asset: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    asset = (await insertToken(database.db)).address;
    await insertCampaign(database.db, { incentives: [erc20Incentive(asset)] });
    app = await buildTestApp(database, { RESPONSE_CACHE_TTL_MS: '1000' }, undefined, { clock: () => clock });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const total = async (url = '/campaigns', headers: Record<string, string> = {}) => {
    const response = await app.inject({ url, headers });
    return { response, total: response.statusCode === 200 ? response.json<{ totalCampaigns: number }>().totalCampaigns : undefined };
  };

  it('answers again from memory within the TTL, without a query, with the same bytes and ETag', async () => {
    const first = await total();
    expect(first.total).toBe(1);
    await insertCampaign(database.db, { incentives: [erc20Incentive(asset)] });
    const execute = vi.spyOn(database.db, 'execute');
    try {
      const again = await total();
      expect(execute).not.toHaveBeenCalled();
      expect(again.total).toBe(1);
      expect(again.response.body).toBe(first.response.body);
      expect(again.response.headers.etag).toBe(first.response.headers.etag);
      expect(again.response.headers['cache-control']).toBe(first.response.headers['cache-control']);
      expect(again.response.headers['content-type']).toBe('application/json; charset=utf-8');
    } finally {
      execute.mockRestore();
    }
  });

  it('answers If-None-Match from memory with 304', async () => {
    const { response } = await total();
    const notModified = await app.inject({ url: '/campaigns', headers: { 'if-none-match': response.headers.etag as string } });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
  });

  it('asks the database again once the TTL has passed', async () => {
    clock = new Date(NOW.getTime() + 1001);
    expect((await total()).total).toBe(2);
  });

  it('keeps each request target apart and never keeps an error', async () => {
    expect((await total('/campaigns?pageSize=1')).total).toBe(2);
    expect((await total('/campaigns?pageSize=0')).response.json()).toEqual({ campaigns: [], totalCampaigns: 2 });
    const bad = await total('/campaigns?pageSize=1000');
    expect(bad.response.statusCode).toBe(400);
    expect(bad.response.headers.etag).toBeUndefined();
    expect((await total('/campaigns?pageSize=1000')).response.statusCode).toBe(400);
  });

  it('keeps only the answers of the last TTL: expired ones go when the next answer is kept', async () => {
    const keptBytes = async () => {
      const metrics = (await app.inject('/metrics')).body;
      return Number(/^response_cache_kept_bytes (\d+)$/m.exec(metrics)?.[1]);
    };
    const answer = async (url: string) => Buffer.byteLength((await app.inject(url)).rawPayload);
    clock = new Date(NOW.getTime() + 10_000);
    const two = await answer('/campaigns?pageSize=2');
    expect(await keptBytes()).toBe(two);
    const three = await answer('/campaigns?pageSize=3');
    expect(await keptBytes()).toBe(two + three);
    clock = new Date(NOW.getTime() + 11_001);
    const four = await answer('/campaigns?pageSize=4');
    expect(await keptBytes()).toBe(four);
  });

  it('leaves the staging routes alone', async () => {
    const response = await app.inject('/users/profile');
    expect(response.statusCode).toBe(401);
    expect(response.headers.etag).toBeUndefined();
  });
});
