import { SignatureType, StrategyType } from '@boostxyz/sdk';
import { type AbiEvent, type AbiFunction, type Address, encodeFunctionData, pad, parseAbiItem, erc20Abi, type Hex, parseEther, parseUnits, toFunctionSelector, toEventSelector, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { amountData, claim as claimThroughSdk, NO_AMOUNT, transferCriteria } from '../../scripts/chain/boosts.js';
import { deploy, freePort, type LocalChain, send, startAnvil } from '../../scripts/chain/local-chain.js';
import { deployProtocol, devAccount, type Protocol, sampleAction } from '../../scripts/chain/protocol.js';
import type { App } from '../../src/app.js';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { importRecords, indexOnce } from '../chain/chain-fixture.js';

/**
 * GET /signatures end to end, on anvil with the protocol's own bytecode: campaigns made through
 * the SDK whose validator trusts the service's key, indexed by the service's indexer, checked
 * against real transactions, and the signatures claimed on chain.
 */

// The registry's ABI items as the SDK's knownSignatures (@boostxyz/signatures) shape them: unnamed inputs.
const transferEvent = parseAbiItem('event Transfer(address indexed, address indexed, uint256)') as AbiEvent;
const approvalEvent = parseAbiItem('event Approval(address indexed, address indexed, uint256)') as AbiEvent;
const mintFunction = parseAbiItem('function mint(address, uint256)') as AbiFunction;

describe('GET /signatures on the real protocol (SDK bytecode on anvil)', () => {
  let chain: LocalChain;
  let protocol: Protocol;
  let database: TestDatabase;
  let app: App;
  let core: Address;
  const serviceKey = generatePrivateKey();
  const service = privateKeyToAccount(serviceKey);
  const claimant = devAccount(1).address.toLowerCase() as Address;
  let trusted: string;
  let untrusted: string;
  let untrustedValidator: string;
  let exhausted: string;
  let allowListed: string;
  let variable: string;
  let pegged: string;
  let peggedCriteria: string;
  let claimantless: string;
  let mixed: string;
  let unlisted: string;
  let otherChain: LocalChain;
  /** Every line the app logs, at every level. */
  const logLines: string[] = [];
  let beforeCampaign: Hex;

  const ask = (campaignId: string, txHash: string, extra = '') => app.inject(`/signatures?campaignId=${campaignId}&txHash=${txHash}${extra}`);
  /** A mint to `to` from anvil's first account: the sample action's Transfer from the zero address and its mint call. */
  const mint = async (to: Address, amount: bigint) => (await send(chain, protocol.token, 'TestToken', 'mint', [to, amount])).hash;

  beforeAll(async () => {
    chain = await startAnvil();
    // Another chain the service reads: a transaction there is on the wrong chain for these campaigns.
    otherChain = await startAnvil({ chainId: 31338 });
    protocol = await deployProtocol(chain);
    core = protocol.core.assertValidAddress();
    beforeCampaign = await mint(claimant, parseEther('2'));
    const manager = protocol.budget.assertValidAddress();
    const erc20 = (limit = 5n) => protocol.core.ERC20Incentive({ asset: protocol.token, strategy: StrategyType.POOL, reward: parseEther('1'), limit, manager });
    const both = [protocol.owner.address, service.address];
    const make = async (
      signers: Address[],
      {
        incentives = [erc20()],
        allowList = protocol.core.OpenAllowList(),
        action = sampleAction(protocol.token, chain.chainId),
      }: { incentives?: Parameters<typeof protocol.core.createBoost>[0]['incentives']; allowList?: Parameters<typeof protocol.core.createBoost>[0]['allowList']; action?: ReturnType<typeof sampleAction> } = {},
    ) =>
      protocol.core.createBoost({
        protocolFee: 0n,
        budget: protocol.budget,
        action: protocol.core.EventAction(action),
        validator: protocol.core.SignerValidator({ signers, validatorCaller: core }),
        maxParticipants: 10n,
        allowList,
        incentives,
      });
    const trustedBoost = await make(both);
    const untrustedBoost = await make([protocol.owner.address]);
    const id = (boostId: bigint) => `${chain.chainId}:${core.toLowerCase()}:${boostId}`;
    trusted = id(trustedBoost.id);
    untrusted = id(untrustedBoost.id);
    untrustedValidator = untrustedBoost.validator.assertValidAddress().toLowerCase();
    // Its one claim made (signed by the protocol's owner), it has nothing left to pay: not active.
    const exhaustedBoost = await make(both, { incentives: [erc20(1n)] });
    exhausted = id(exhaustedBoost.id);
    await claimThroughSdk(protocol, exhaustedBoost, 0, devAccount(2).address, NO_AMOUNT, { sender: devAccount(2) });
    // An allow list without the claimant; incentives the service does not sign for as they stand.
    allowListed = id((await make(both, { allowList: protocol.core.SimpleAllowList({ owner: protocol.owner.address, allowed: [devAccount(2).address] }) })).id);
    variable = id((await make(both, { incentives: [protocol.core.ERC20VariableIncentive({ asset: protocol.token, reward: 0n, limit: parseEther('20'), manager })] })).id);
    pegged = id(
      (await make(both, { incentives: [protocol.core.ERC20PeggedIncentive({ asset: protocol.usd, peg: protocol.token, reward: parseEther('2'), limit: parseUnits('500', 6), manager })] })).id,
    );
    // Pays half the minted amount's worth (the Transfer's value, named in the peg) in the dollar token.
    peggedCriteria = id(
      (
        await make(both, {
          incentives: [
            protocol.core.ERC20PeggedVariableCriteriaIncentive({
              asset: protocol.usd,
              peg: protocol.token,
              reward: parseEther('0.5'),
              limit: parseUnits('100', 6),
              maxReward: parseUnits('50', 6),
              criteria: transferCriteria(protocol.token),
              manager,
            }),
          ],
        })
      ).id,
    );
    // A claimant read from an Approval, which a mint does not log.
    const approvalClaimant = { ...sampleAction(protocol.token, chain.chainId), actionClaimant: { signatureType: SignatureType.EVENT, signature: toEventSelector(approvalEvent), fieldIndex: 0, targetContract: protocol.token, chainid: chain.chainId } };
    claimantless = id((await make(both, { action: approvalClaimant })).id);
    // Incentive 0 pays one claim (made below); incentive 1 pays by the minted amount (the Transfer's value, field 2).
    const mixedBoost = await make(both, {
      incentives: [
        erc20(1n),
        protocol.core.ERC20VariableCriteriaIncentive({ asset: protocol.token, reward: parseEther('0.5'), limit: parseEther('30'), maxReward: parseEther('4'), criteria: transferCriteria(protocol.token) }),
      ],
    });
    mixed = id(mixedBoost.id);
    await claimThroughSdk(protocol, mixedBoost, 0, devAccount(2).address, NO_AMOUNT, { sender: devAccount(2) });
    // Incentive 0 is of a type the service does not list (chain/contracts/UnlistedIncentive.sol, a base
    // implementation the SDK's createBoost passes on as it is): the ERC-20 incentive is incentive 1 on
    // chain and the first the campaign lists.
    const unlistedBase = await deploy(chain, 'UnlistedIncentive');
    const unlistedIncentive = { address: unlistedBase, isBase: true, buildParameters: () => ({ args: ['0x'] }), at: (address: Address) => ({ address }) };
    unlisted = id((await make(both, { incentives: [unlistedIncentive as unknown as ReturnType<typeof erc20>, erc20()] })).id);

    database = await createTestDatabase();
    await importRecords(database, [
      { kind: 'knownSignature', id: toEventSelector(transferEvent), textSignature: 'Transfer(address,address,uint256)', abiItem: transferEvent, signatureType: 'event' },
      { kind: 'knownSignature', id: pad(toFunctionSelector(mintFunction)), textSignature: 'mint(address,uint256)', abiItem: mintFunction, signatureType: 'function' },
      { kind: 'knownSignature', id: toEventSelector(approvalEvent), textSignature: 'Approval(address,address,uint256)', abiItem: approvalEvent, signatureType: 'event' },
    ]);
    await indexOnce(chain, core, database);
    app = await buildTestApp(database, {
      SIGNER_PRIVATE_KEY: serviceKey,
      CHAIN_RPC_URLS: `${chain.chainId}=${chain.url},${otherChain.chainId}=${otherChain.url}`,
      INDEXER_CORES: `${chain.chainId}:${core}:0,${otherChain.chainId}:${core}:0`,
      SIGNATURE_CONFIRMATIONS: '2',
    }, undefined, { logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }) });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await chain?.stop();
    await otherChain?.stop();
  });

  it('signs a qualifying transaction once it is final; the SDK claims with it once, and a second claim reverts', async () => {
    const hash = await mint(claimant, parseEther('3'));
    const early = await ask(trusted, hash);
    expect(early.statusCode).toBe(400);
    expect(early.json()).toEqual({ error: { code: 'not_final', message: 'the transaction is 0 blocks deep; it is signed for once it is 2 deep' } });
    expect(early.headers['retry-after']).toBe('5');
    await chain.mine(2);

    const response = await ask(trusted, hash);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const [issued, ...rest] = response.json<{ signature: Hex; claimant: string; referrer: string; incentiveId: number }[]>();
    expect(rest).toEqual([]);
    expect(issued).toMatchObject({ claimant, referrer: zeroAddress, incentiveId: 0 });
    // The same request, the same answer; the signature is kept and served as the claimant's.
    expect((await ask(trusted, hash)).json()).toEqual(response.json());
    const claimable = async () => (await app.inject(`/signatures/claimable/${claimant}`)).json<{ campaignId: string; signature: string }[]>();
    expect(await claimable()).toEqual([expect.objectContaining({ campaignId: trusted, signature: issued!.signature })]);
    // Streams hear of it: one signature.issued, however often it was asked for.
    const events = await queryRows<{ data: unknown }>(database.db, sql`SELECT data FROM events WHERE type = 'signature.issued' ORDER BY id`);
    expect(events.map((event) => event.data)).toEqual([
      { campaignId: trusted, chainId: chain.chainId, claimant, incentiveId: 0, signature: issued!.signature, referrer: zeroAddress, txHash: hash },
    ]);

    const boostId = BigInt(trusted.split(':')[2]!);
    const as = protocol.coreAs(devAccount(1));
    const { hash: claimHash } = await as.claimIncentiveRaw(boostId, 0n, zeroAddress, issued!.signature);
    expect((await chain.public.waitForTransactionReceipt({ hash: claimHash, pollingInterval: 20 })).status).toBe('success');
    await expect(as.claimIncentiveRaw(boostId, 0n, zeroAddress, issued!.signature)).rejects.toThrow();

    // Indexed, the claim shows and its signature is used; a later qualifying transaction of the same claimant earns nothing more.
    await indexOnce(chain, core, database);
    expect(await claimable()).toEqual([]);
    const again = await mint(claimant, parseEther('4'));
    await chain.mine(2);
    const refused = await ask(trusted, again);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ error: { code: 'already_claimed', message: 'incentive 0: the claimant has claimed it' } });
  });

  it('names the incentive by its id on chain where the boost has one of a type the service does not list; the SDK claims with it', async () => {
    const listed = await queryRows<{ position: number; type: string }>(
      database.db,
      sql`SELECT i.position, i.type FROM incentives AS i JOIN campaigns AS c ON c.key = i.campaign_key WHERE c.public_id = ${unlisted}`,
    );
    expect(listed).toEqual([{ position: 0, type: 'ERC20Incentive' }]);
    // The two ways between positions and ids on chain: the unlisted incentive 0 has no position.
    const [mapped] = await queryRows<{ id_of_0: number; position_of_1: number; position_of_0: number | null }>(
      database.db,
      sql`SELECT incentive_chain_id(c.key, 0) AS id_of_0, incentive_position(c.key, 1) AS position_of_1, incentive_position(c.key, 0) AS position_of_0
            FROM campaigns AS c WHERE c.public_id = ${unlisted}`,
    );
    expect(mapped).toEqual({ id_of_0: 1, position_of_1: 0, position_of_0: null });
    const hash = await mint(claimant, parseEther('1'));
    await chain.mine(2);
    const response = await ask(unlisted, hash);
    expect(response.statusCode, response.body).toBe(200);
    const [issued, ...rest] = response.json<{ signature: Hex; claimant: string; incentiveId: number }[]>();
    expect(rest).toEqual([]);
    expect(issued).toMatchObject({ claimant, incentiveId: 1 });
    expect((await ask(unlisted, hash)).json()).toEqual(response.json());
    const claimable = async () =>
      (await app.inject(`/signatures/claimable/${claimant}`)).json<{ campaignId: string; incentiveId: number; signature: string }[]>().filter((row) => row.campaignId === unlisted);
    expect(await claimable()).toEqual([expect.objectContaining({ incentiveId: 1, signature: issued!.signature })]);
    const [event] = await queryRows<{ data: { incentiveId: number } }>(
      database.db,
      sql`SELECT data FROM events WHERE type = 'signature.issued' AND campaign_id = ${unlisted}`,
    );
    expect(event?.data.incentiveId).toBe(1);

    // The validator takes it for incentive 1 (a quantity of 1, the incentives the service lists, it refuses).
    const boostId = BigInt(unlisted.split(':')[2]!);
    const { hash: claimHash } = await protocol.coreAs(devAccount(1)).claimIncentiveRaw(boostId, 1n, zeroAddress, issued!.signature);
    expect((await chain.public.waitForTransactionReceipt({ hash: claimHash, pollingInterval: 20 })).status).toBe('success');

    // Indexed, the claim is the listed incentive's, and its signature is used.
    await indexOnce(chain, core, database);
    const claims = await queryRows<{ position: number }>(
      database.db,
      sql`SELECT w.incentive_position AS position FROM claims AS w JOIN campaigns AS c ON c.key = w.campaign_key WHERE c.public_id = ${unlisted}`,
    );
    expect(claims).toEqual([{ position: 0 }]);
    expect(await claimable()).toEqual([]);
    const again = await mint(claimant, parseEther('1'));
    await chain.mine(2);
    const refused = await ask(unlisted, again);
    expect(refused.json()).toEqual({ error: { code: 'already_claimed', message: 'incentive 1: the claimant has claimed it' } });
  });

  it('refuses each kind of transaction that earns nothing, with its code', async () => {
    await mint(chain.account, 10n);
    const transfer = (await send(chain, protocol.token, 'TestToken', 'transfer', [devAccount(2).address, 1n])).hash;
    const smallMint = await mint(devAccount(3).address, 1n);
    const reverted = await chain.wallet.sendTransaction({
      account: chain.account,
      chain: null,
      to: protocol.token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [devAccount(2).address, 10n ** 40n] }),
      gas: 100_000n,
    });
    await chain.public.waitForTransactionReceipt({ hash: reverted, pollingInterval: 20 });
    const fine = await mint(devAccount(3).address, parseEther('1'));
    const approval = (await send(chain, protocol.token, 'TestToken', 'approve', [devAccount(2).address, 1n])).hash;
    const elsewhere = await otherChain.wallet.sendTransaction({ account: otherChain.account, chain: null, to: devAccount(2).address, value: 1n });
    await otherChain.public.waitForTransactionReceipt({ hash: elsewhere, pollingInterval: 20 });
    await chain.mine(2);
    const cases: [string, string, string, RegExp][] = [
      [trusted, transfer, 'criteria_not_met', /./],
      [trusted, smallMint, 'criteria_not_met', /./],
      [trusted, reverted, 'tx_failed', /^the transaction reverted/],
      [trusted, beforeCampaign, 'before_campaign', /the campaign was created in block/],
      [trusted, `0x${'ab'.repeat(32)}`, 'tx_not_found', /^chain 31337 has no transaction/],
      [untrusted, fine, 'validator_does_not_trust_this_signer', /trusts none of this service's keys/],
      [trusted, approval, 'action_not_done', /^the transaction has no Transfer event from 0x/],
      [trusted, elsewhere, 'wrong_chain', /^the transaction is on chain 31338; the campaign is on chain 31337$/],
      [allowListed, fine, 'not_allowed', /may not claim under the campaign's allow list$/],
      [variable, fine, 'caller_amount_not_allowed', /^incentive 0: it pays an amount the caller chooses/],
      [claimantless, fine, 'claimant_not_found', /^the action's claimant field could not be read/],
    ];
    for (const [campaign, hash, code, message] of cases) {
      const response = await ask(campaign, hash);
      expect(response.statusCode, `${code}: ${response.body}`).toBe(400);
      const { error } = response.json<{ error: { code: string; message: string } }>();
      expect(error.code, error.message).toBe(code);
      expect(error.message).toMatch(message);
    }
  });

  it('signs the incentives that still pay: a variable-criteria amount read from the transaction, claimed on chain', async () => {
    const holder = devAccount(6);
    const hash = await mint(holder.address, parseEther('3'));
    await chain.mine(2);
    const response = await ask(mixed, hash);
    expect(response.statusCode, response.body).toBe(200);
    // Incentive 0 paid its one claim: only incentive 1, for the Transfer's value.
    const [issued, ...rest] = response.json<{ signature: Hex; incentiveId: number }[]>();
    expect(rest).toEqual([]);
    expect(issued!.incentiveId).toBe(1);
    const boostId = BigInt(mixed.split(':')[2]!);
    const before = await chain.public.readContract({ address: protocol.token, abi: erc20Abi, functionName: 'balanceOf', args: [holder.address] });
    const { hash: claimHash } = await protocol.coreAs(holder).claimIncentiveRaw(boostId, 1n, zeroAddress, issued!.signature);
    expect((await chain.public.waitForTransactionReceipt({ hash: claimHash, pollingInterval: 20 })).status).toBe('success');
    // The contract pays reward x amount / 1e18 = 0.5 x 3, under its maxReward of 4.
    const after = await chain.public.readContract({ address: protocol.token, abi: erc20Abi, functionName: 'balanceOf', args: [holder.address] });
    expect(after - before).toBe(parseEther('1.5'));

    // Another mint by someone else: incentive 0 refuses for its limit, and the message names both reasons' incentive.
    await indexOnce(chain, core, database);
    const again = await ask(mixed, await mint(holder.address, parseEther('2')).then(async (next) => (await chain.mine(2), next)));
    expect(again.json()).toEqual({ error: { code: 'limit_reached', message: 'incentive 0: it has paid its 1 claims; incentive 1: the claimant has claimed it' } });
  });

  it("signs a pegged incentive for its peg's worth in its asset, at both prices of the transaction's time, and the SDK claims with it", async () => {
    const holder = devAccount(9);
    const hash = await mint(holder.address, parseEther('3'));
    await chain.mine(2);
    const { blockNumber } = await chain.public.getTransactionReceipt({ hash });
    const at = Number((await chain.public.getBlock({ blockNumber })).timestamp) * 1000;
    const iso = (ms: number) => new Date(ms).toISOString();

    // No price of the peg yet: refused with Retry-After, and not kept (the price job may fetch one).
    for (const campaign of [pegged, peggedCriteria]) {
      const early = await ask(campaign, hash);
      expect(early.statusCode, early.body).toBe(400);
      expect(early.json()).toEqual({
        error: { code: 'price_unknown', message: `incentive 0: its peg ${protocol.token.toLowerCase()} has no price from the two hours before the transaction's time (${iso(at)})` },
      });
      expect(early.headers['retry-after']).toBe('5');
    }
    const price = (address: Address, ms: number, priceUsd: string) => ({ kind: 'price' as const, chainId: chain.chainId, address: address.toLowerCase(), at: iso(ms), priceUsd });
    await importRecords(database, [
      // Older than two hours, and after the transaction: neither counts.
      price(protocol.token, at - 3 * 3_600_000, '100'),
      price(protocol.token, at - 600_000, '3'),
      price(protocol.token, at + 1_000, '50'),
      price(protocol.usd, at - 1_200_000, '0.5'),
      price(protocol.usd, at - 300_000, '1'),
    ]);

    const claimOnChain = async (campaign: string) => {
      const response = await ask(campaign, hash);
      expect(response.statusCode, response.body).toBe(200);
      const [issued] = response.json<{ signature: Hex; incentiveId: number }[]>();
      const balance = () => chain.public.readContract({ address: protocol.usd, abi: erc20Abi, functionName: 'balanceOf', args: [holder.address] });
      const before = await balance();
      const { hash: claimHash } = await protocol.coreAs(holder).claimIncentiveRaw(BigInt(campaign.split(':')[2]!), 0n, zeroAddress, issued!.signature);
      expect((await chain.public.waitForTransactionReceipt({ hash: claimHash, pollingInterval: 20 })).status).toBe('success');
      return (await balance()) - before;
    };
    // A reward of 2 of the peg at $3, paid in the $1 asset (6 decimals): 6 of it.
    expect(await claimOnChain(pegged)).toBe(parseUnits('6', 6));
    // The criteria find 3 of the peg (the minted amount) worth 9 of the asset; the contract pays its reward of 0.5 per unit.
    expect(await claimOnChain(peggedCriteria)).toBe(parseUnits('4.5', 6));
  });

  it("checks at start whether the active campaigns' validators trust its key, and names those that do not", async () => {
    const checked = () => logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => String(entry.msg).includes("active campaigns' validators checked"));
    await vi.waitFor(() => expect(checked()).toBeDefined(), { timeout: 20_000, interval: 50 });
    const entry = checked()!;
    expect(entry.level).toBe(40);
    expect(entry).toMatchObject({ signers: [service.address], refusing: 1, unreadable: 0, examples: [`${chain.chainId}:${untrustedValidator}`] });
    expect(entry.trusting).toBeGreaterThanOrEqual(5);
  });

  it('answers 410 for a campaign that is not active', async () => {
    const response = await ask(exhausted, await mint(claimant, parseEther('1')));
    expect(response.statusCode).toBe(410);
    expect(response.json()).toEqual({ error: `campaign ${exhausted} is not active` });
  });

  it("signs an ERC20VariableIncentive for the caller's amount where the operator allows it, within what it has left", async () => {
    const callerAmounts = await buildTestApp(database, {
      SIGNER_PRIVATE_KEY: serviceKey,
      CHAIN_RPC_URLS: `${chain.chainId}=${chain.url}`,
      INDEXER_CORES: `${chain.chainId}:${core}:0`,
      SIGNATURE_CONFIRMATIONS: '2',
      SIGNATURE_CALLER_AMOUNTS: 'true',
    });
    try {
      const holder = devAccount(8);
      const hash = await mint(holder.address, parseEther('1'));
      await chain.mine(2);
      const askFor = (claimData?: string) =>
        callerAmounts.inject(`/signatures?campaignId=${variable}&txHash=${hash}${claimData === undefined ? '' : `&claimData=${claimData}`}`);
      for (const [claimData, status, error] of [
        [undefined, 400, { code: 'caller_amount_not_allowed', message: 'incentive 0: it needs the amount in claimData (an ABI-encoded uint256)' }],
        ['0x12', 400, 'claimData must be an ABI-encoded uint256 amount'],
        [amountData(0n), 400, 'claimData must be an amount above 0'],
        [amountData(parseEther('21')), 400, { code: 'limit_reached', message: `incentive 0: it has ${parseEther('20')} left, less than the ${parseEther('21')} asked` }],
      ] as const) {
        const response = await askFor(claimData);
        expect(response.statusCode, String(claimData)).toBe(status);
        expect(response.json(), String(claimData)).toEqual({ error });
      }
      const response = await askFor(amountData(parseEther('2.5')));
      expect(response.statusCode, response.body).toBe(200);
      const [issued] = response.json<{ signature: Hex; incentiveId: number }[]>();
      const before = await chain.public.readContract({ address: protocol.token, abi: erc20Abi, functionName: 'balanceOf', args: [holder.address] });
      const { hash: claimHash } = await protocol.coreAs(holder).claimIncentiveRaw(BigInt(variable.split(':')[2]!), 0n, zeroAddress, issued!.signature);
      expect((await chain.public.waitForTransactionReceipt({ hash: claimHash, pollingInterval: 20 })).status).toBe('success');
      const after = await chain.public.readContract({ address: protocol.token, abi: erc20Abi, functionName: 'balanceOf', args: [holder.address] });
      expect(after - before).toBe(parseEther('2.5'));
    } finally {
      await callerAmounts.close();
    }
  });

  it('answers 503 with Retry-After while the chain cannot be read, and limits each client IP on its own budget', async () => {
    const closed = await freePort();
    const cut = await buildTestApp(database, {
      SIGNER_PRIVATE_KEY: serviceKey,
      CHAIN_RPC_URLS: `${chain.chainId}=http://127.0.0.1:${closed}`,
      INDEXER_CORES: `${chain.chainId}:${core}:0`,
      SIGNATURE_RATE_LIMIT_MAX: '3',
    });
    try {
      for (let asked = 1; asked <= 3; asked++) {
        const response = await cut.inject(`/signatures?campaignId=${trusted}&txHash=0x${'cd'.repeat(32)}`);
        expect(response.statusCode).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(response.json()).toEqual({ error: `chain ${chain.chainId} could not be read this time; retry shortly` });
      }
      const limited = await cut.inject(`/signatures?campaignId=${trusted}&txHash=0x${'cd'.repeat(32)}`);
      expect(limited.statusCode).toBe(429);
      expect(limited.json<{ error: string }>().error).toMatch(/^rate limit of GET \/signatures exceeded: at most 3 requests per 60 s; retry in /);
      // The other operations keep the general budget.
      expect((await cut.inject('/campaigns')).statusCode).toBe(200);
    } finally {
      await cut.close();
    }
  });

  it('answers 404 for an unknown campaign and 400 for a malformed query, and the key shows nowhere', async () => {
    const unknown = await ask(`${chain.chainId}:${core.toLowerCase()}:999`, `0x${'ab'.repeat(32)}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: `campaign ${chain.chainId}:${core.toLowerCase()}:999 not found` });
    for (const [query, error] of <[string, string][]>[
      [`campaignId=${trusted}`, 'txHash is required'],
      [`campaignId=${trusted}&txHash=0x12`, 'txHash must be a transaction hash: 0x followed by 64 hexadecimal characters'],
      [`campaignId=nope&txHash=0x${'ab'.repeat(32)}`, 'campaignId must be a campaign ID of the form <chain_id>:<campaign_core_address>:<identifier>'],
    ]) {
      const response = await app.inject(`/signatures?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json<{ error: string }>().error, query).toBe(error);
    }
    const document = JSON.stringify((await app.inject('/openapi.json')).json());
    expect(document).toContain('getSignatures');
    expect(document).not.toContain(serviceKey.slice(2));
  });

  it('makes a signature claimable again when a reorganisation removes its claim', async () => {
    const holder = devAccount(7);
    const beforeFork = await chain.snapshot();
    const forkHeight = await chain.public.getBlockNumber();
    const hash = await mint(holder.address, parseEther('2'));
    await chain.mine(2);
    const [issued] = (await ask(trusted, hash)).json<{ signature: Hex }[]>();
    const { hash: claimHash } = await protocol.coreAs(holder).claimIncentiveRaw(BigInt(trusted.split(':')[2]!), 0n, zeroAddress, issued!.signature);
    await chain.public.waitForTransactionReceipt({ hash: claimHash, pollingInterval: 20 });
    // And on the boost whose listed incentive is incentive 1 on chain: its claim is at position 0.
    const [issuedUnlisted] = (await ask(unlisted, hash)).json<{ signature: Hex; incentiveId: number }[]>();
    expect(issuedUnlisted?.incentiveId).toBe(1);
    const { hash: unlistedClaimHash } = await protocol
      .coreAs(holder)
      .claimIncentiveRaw(BigInt(unlisted.split(':')[2]!), 1n, zeroAddress, issuedUnlisted!.signature);
    await chain.public.waitForTransactionReceipt({ hash: unlistedClaimHash, pollingInterval: 20 });
    const height = await chain.public.getBlockNumber();
    await indexOnce(chain, core, database);
    const claimable = async () => (await app.inject(`/signatures/claimable/${holder.address.toLowerCase()}`)).json<{ signature: string }[]>();
    expect(await claimable()).toEqual([]);

    // The blocks of the mint and the claims are orphaned: the chain goes on without them, higher.
    await chain.revert(beforeFork);
    await chain.mine(Number(height - forkHeight) + 2);
    await indexOnce(chain, core, database);
    const again = await claimable();
    expect(again).toHaveLength(2);
    expect(again).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ campaignId: trusted, signature: issued!.signature }),
        expect.objectContaining({ campaignId: unlisted, signature: issuedUnlisted!.signature, incentiveId: 1 }),
      ]),
    );
  });

  it('never writes the key to a log line', () => {
    expect(logLines.length).toBeGreaterThan(20);
    const key = serviceKey.slice(2).toLowerCase();
    expect(logLines.filter((line) => line.toLowerCase().includes(key))).toEqual([]);
  });
});
