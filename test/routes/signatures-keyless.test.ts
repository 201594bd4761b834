import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { erc20Incentive, insertCampaign } from '../helpers/factories.js';

/**
 * GET /signatures on a server without a signing key, which never loads the code that checks
 * transactions (services/claim-signing.ts): the same answers as a server with keys gives before it
 * reads the chain, then 503.
 */
describe('GET /signatures without a signing key', () => {
  const setup = useTestApp();
  const txHash = `0x${'ab'.repeat(32)}`;
  const ask = (campaignId: string) => setup.app.inject(`/signatures?campaignId=${campaignId}&txHash=${txHash}`);

  it('answers 404 for an unknown campaign, 410 for an ended one, and 503 with Retry-After for an active one', async () => {
    const { database } = setup;
    const token = `0x${'a'.repeat(40)}`;
    const active = await insertCampaign(database.db, { incentives: [erc20Incentive(token)] });
    const ended = await insertCampaign(database.db, { incentives: [erc20Incentive(token)], endTime: new Date('2020-01-01T00:00:00Z') });

    const unknown = await ask('8453:0x0000000000000000000000000000000000000001:999999');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'campaign 8453:0x0000000000000000000000000000000000000001:999999 not found' });

    const gone = await ask(ended.publicId);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toEqual({ error: `campaign ${ended.publicId} is not active` });

    const keyless = await ask(active.publicId);
    expect(keyless.statusCode).toBe(503);
    expect(keyless.headers['retry-after']).toBe('5');
    expect(keyless.json()).toEqual({ error: 'this service has no signing key (SIGNER_PRIVATE_KEY or SIGNER_KEY_FILE)' });
  });
});
