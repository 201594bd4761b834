import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaignsRepository } from '../../src/repositories/campaigns.repository.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { insertCampaign } from '../helpers/factories.js';

describe('campaigns repository: list items by keys (GET /explore)', () => {
  let database: TestDatabase;
  let first: { key: number; publicId: string };
  let second: { key: number; publicId: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await insertCampaign(database.db);
    second = await insertCampaign(database.db);
  });
  afterAll(() => database.close());

  const ids = (items: string[]) => items.map((item) => (JSON.parse(item) as { id: string }).id);

  it('returns the items in the order of the keys, leaving out keys of no campaign', async () => {
    const repository = createCampaignsRepository(database.db);
    const now = new Date();
    expect(ids(await repository.listItemsByKeys([second.key, 999_999, first.key], now))).toEqual([second.publicId, first.publicId]);
    expect(await repository.listItemsByKeys([999_999], now)).toEqual([]);
    expect(await repository.listItemsByKeys([], now)).toEqual([]);
  });
});
