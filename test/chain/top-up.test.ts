import { type Address, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { type Deployed, type LocalChain, send } from '../../scripts/chain/local-chain.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createCampaigns, importRecords, indexOnce, makeClaims, operatorRecords, startChain } from './chain-fixture.js';

/**
 * Top-ups, on the Solidity stand-ins: the proxy generation's incentives have `topup` (the
 * IToppable `ToppedUp` event), the legacy bytecode that @boostxyz/sdk ships and test/protocol/ runs
 * has none. After a top-up of the ERC-20 incentive (more claims) and of the variable one (more
 * budget), and after a reorganisation that orphans them, the served limits are the chain's.
 */

const E18 = 10n ** 18n;
const getters = parseAbi(['function limit() view returns (uint256)', 'function claims() view returns (uint256)']);

describe('top-ups on the stand-ins (the proxy generation)', () => {
  let chain: LocalChain;
  let deployed: Deployed;
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    ({ chain, deployed } = await startChain());
    database = await createTestDatabase();
    await importRecords(database, operatorRecords(chain.chainId));
    await createCampaigns(chain, deployed);
    await makeClaims(chain, deployed);
    await indexOnce(chain, deployed.core, database);
    app = await buildTestApp(database);
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await chain?.stop();
  });

  const read = (address: Address, functionName: 'limit' | 'claims') => chain.public.readContract({ address, abi: getters, functionName });

  /** Boost 0's ERC-20 incentive serves its claims left, the variable one its budget, as the chain has them. */
  async function expectLimitsAsOnChain() {
    const response = await app.inject({ url: `/campaigns/${chain.chainId}:${deployed.core.toLowerCase()}:0` });
    expect(response.statusCode).toBe(200);
    const [erc20, variable] = response.json<{ incentives: Record<string, string>[] }>().incentives;
    expect(erc20!.limit).toBe(((await read(deployed.erc20, 'limit')) - (await read(deployed.erc20, 'claims'))).toString());
    expect(variable!.limit).toBe((await read(deployed.variableV2, 'limit')).toString());
    return { erc20: erc20!, variable: variable! };
  }

  it('serves the limits a top-up raises, and the ones before it when a reorganisation orphans it', async () => {
    const before = await expectLimitsAsOnChain();
    const snapshot = await chain.snapshot();
    await send(chain, deployed.erc20, 'TestERC20Incentive', 'topup', [5n * E18]);
    await send(chain, deployed.variableV2, 'TestERC20VariableCriteriaIncentiveV2', 'topup', [7n * E18]);
    await indexOnce(chain, deployed.core, database);
    const after = await expectLimitsAsOnChain();
    expect(BigInt(after.erc20.limit!) - BigInt(before.erc20.limit!)).toBe(5n);
    expect(BigInt(after.variable.limit!) - BigInt(before.variable.limit!)).toBe(7n * E18);
    // A top-up is not a claim.
    expect(after.erc20.totalClaims).toBe(before.erc20.totalClaims);

    await chain.revert(snapshot);
    await chain.mine(3);
    await indexOnce(chain, deployed.core, database);
    expect(await expectLimitsAsOnChain()).toEqual(before);
  });
});
