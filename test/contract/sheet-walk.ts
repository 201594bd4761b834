import { type SQL, sql } from 'drizzle-orm';

/** Calls one operation's URL, checks the answer against the public API's document, and returns it. */
export type SheetCall = (operationId: string, url: string, auth?: boolean) => Promise<unknown>;
/** Runs a query whose rows have one `id` column. */
export type IdQuery = (query: SQL) => Promise<string[]>;

/**
 * Calls all eighteen operations with every kind of parameter the public API's document names, on ids read from the
 * database: the contract test walks the demo data, `npm run check:sheet` any database (the
 * 100,000-campaign set). `user` is the address whose bearer token `call` sends when `auth` is set.
 */
export async function walkEveryOperation(call: SheetCall, ids: IdQuery, user: string): Promise<void> {
  const campaignIds = await ids(sql`SELECT public_id AS id FROM campaigns ORDER BY key LIMIT 40`);
  const claimants = await ids(sql`SELECT claimant AS id FROM claims GROUP BY claimant ORDER BY count(*) DESC LIMIT 5`);
  const signers = await ids(sql`SELECT claimant AS id FROM claim_signatures WHERE NOT used GROUP BY claimant ORDER BY count(*) DESC LIMIT 5`);
  const templates = await ids(sql`SELECT id::text AS id FROM action_templates ORDER BY id`);
  const accounts = await ids(sql`SELECT chain_id || ':' || address AS id FROM budget_accounts ORDER BY chain_id, address LIMIT 60`);
  const tokens = await ids(sql`SELECT chain_id || '/' || address AS id FROM tokens`);
  const people = [user, ...claimants, ...signers];

  await call('listCampaigns', '/campaigns?pageSize=100&tokenWhitelist=false');
  for (const id of campaignIds.slice(0, 10)) await call('getCampaign', `/campaigns/${id}`);
  for (const period of ['1h', '24h']) {
    await call('listTrendingCampaigns', `/reward-kit/trending?sortBy=${period}&pageSize=100&tokenWhitelist=false&includeTokenMetadata=true`);
    for (const person of people) await call('listTrendingCampaigns', `/reward-kit/trending?sortBy=${period}&pageSize=100&claimantAddress=${person}`);
  }
  await call('exploreContracts', '/explore/contracts?pageSize=100');
  await call('listAccessLists', '/campaigns/accesslists?pageSize=100', true);
  await call('getUserProfile', '/users/profile', true);

  for (let page = 1; page <= 2; page++) await call('getKnownSignatures', `/known-signatures?page=${page}&pageSize=10`);
  for (const sort of ['most-completions', 'total-spend', 'recently-deployed']) {
    for (const period of ['6h', '24h', '7d']) await call('exploreCampaigns', `/explore?sortBy=${sort}&timePeriod=${period}&pageSize=100`);
  }
  for (const person of people) await call('getClaimableSignatures', `/signatures/claimable/${person}`);
  for (const token of tokens) await call('getBlocklist', `/blocklist/${token}`);
  for (const id of campaignIds) await call('getCampaignActivity', `/campaigns/${id}/activity?pageSize=100`);
  for (const sort of ['active', 'recently-deployed']) {
    await call('getRewardKitRewards', `/reward-kit/campaigns?sortBy=${sort}&pageSize=100&tokenWhitelist=false&includeTokenMetadata=true`);
    for (const person of people) {
      for (const status of ['active', 'claimable', 'claimed']) {
        await call('getRewardKitRewards', `/reward-kit/campaigns?sortBy=${sort}&status=${status}&pageSize=100&tokenWhitelist=false&claimantAddress=${person}`);
      }
    }
  }
  for (const person of people) await call('getRewardKit', `/reward-kit?claimantAddress=${person}&tokenWhitelist=false&includeTokenMetadata=true`);
  for (const id of campaignIds) {
    await call('getRewardKitReward', `/reward-kit/campaigns/${id}`);
    await call('getRewardKitReward', `/reward-kit/campaigns/${id}?address=${people[campaignIds.indexOf(id) % people.length]}&includeTokenMetadata=true`);
  }
  await call('getActionTemplates', '/action-templates?onlyActive=false');
  for (const id of templates) await call('getActionTemplate', `/action-templates/${id}`);
  for (let page = 1; page <= 3; page++) await call('getBudgetAccounts', `/budget-accounts?pageSize=100&page=${page}`);
  await call('getBudgetAccounts', `/budget-accounts?member=${user}&pageSize=100`);
  for (const id of accounts) await call('getBudgetAccount', `/budget-accounts/${id}`);
}
