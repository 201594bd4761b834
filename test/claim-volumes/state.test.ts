import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLAIM_WINDOWS, type ClaimWindow, WINDOW_NAMES } from '../../src/claim-volumes/repository.js';
import {
  byVolume,
  CLAIMANT_WINDOWS,
  type ClaimContribution,
  ClaimVolumeState,
  type ContractTargets,
  RANKED_WINDOWS,
} from '../../src/claim-volumes/state.js';

const T = Date.UTC(2026, 5, 1, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CAMPAIGNS = 4;
/** A claimant's address from a short hex name. */
const address = (name: string) => `0x${name.padStart(40, '0')}`;
const CLAIMANTS = [address('0b'), address('0a'), address('0c')];

type AddStep = { kind: 'add'; campaign: number; claimant: number; offsetUs: number; usdMicros: number };
type RemoveStep = { kind: 'remove'; pick: number };
/** A claim's value changed alone: the feed sends the difference (sign 0). */
type RevalueStep = { kind: 'revalue'; pick: number; usdMicros: number };
/** Changes applied at once, in the order given, as one poll of the feed brings them. */
type BatchStep = { kind: 'batch'; changes: (AddStep | RemoveStep | RevalueStep)[] };
type Step = AddStep | RemoveStep | RevalueStep | BatchStep | { kind: 'advance'; ms: number };

/** Offsets near every window edge of the instants the scenario can reach, in microseconds. */
const offsetUs = fc.oneof(
  fc.integer({ min: -8 * DAY * 1000, max: 3 * HOUR * 1000 }),
  fc.constantFrom(...WINDOW_NAMES.flatMap((name) => [0, -CLAIM_WINDOWS[name] * 1000]).flatMap((at) => [at - 1, at, at + 1])),
);

const addStep = (offsets: fc.Arbitrary<number>): fc.Arbitrary<AddStep> =>
  fc.record({
    kind: fc.constant('add' as const),
    campaign: fc.nat({ max: CAMPAIGNS - 1 }),
    claimant: fc.nat({ max: CLAIMANTS.length - 1 }),
    offsetUs: offsets,
    usdMicros: fc.integer({ min: 0, max: 1_000_000_000 }),
  });
const removeStep: fc.Arbitrary<RemoveStep> = fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() });
const revalueStep: fc.Arbitrary<RevalueStep> = fc.record({
  kind: fc.constant('revalue' as const),
  pick: fc.nat(),
  usdMicros: fc.integer({ min: 0, max: 1_000_000_000 }),
});
const batchStep = (offsets: fc.Arbitrary<number>): fc.Arbitrary<BatchStep> =>
  fc.record({
    kind: fc.constant('batch' as const),
    changes: fc.array(
      fc.oneof({ weight: 3, arbitrary: addStep(offsets) }, { weight: 1, arbitrary: removeStep }, { weight: 2, arbitrary: revalueStep }),
      { maxLength: 30 },
    ),
  });

const steps = (offsets: fc.Arbitrary<number>): fc.Arbitrary<Step> =>
  fc.oneof(
    addStep(offsets),
    removeStep,
    revalueStep,
    batchStep(offsets),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.oneof(fc.integer({ min: 0, max: 2 * HOUR }), fc.constantFrom(1, HOUR, DAY, 8 * DAY)) }),
  );
const step = steps(offsetUs);
/**
 * Claims crowded into the minutes at now and at the hour's edge, the clock moving by seconds: minute
 * buckets fill past their first capacity, and claims land between others already stored.
 */
const crowdedOffsetUs = fc.oneof(fc.integer({ min: -30_000_000, max: 30_000_000 }), fc.integer({ min: -HOUR * 1000 - 30_000_000, max: -HOUR * 1000 + 30_000_000 }));
const crowdedStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: addStep(crowdedOffsetUs) },
  { weight: 1, arbitrary: removeStep },
  { weight: 1, arbitrary: revalueStep },
  { weight: 2, arbitrary: batchStep(crowdedOffsetUs) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 20_000 }) }) },
);

/**
 * The in-memory volumes against the definition, recomputed from the list of claims at every step:
 * claims added and removed at any time (past, future, on a window edge), and the clock moving on.
 */
describe('ClaimVolumeState', () => {
  it('equals a plain aggregation of the claims after every addition, removal and passing of time', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), checkScenario),
      { numRuns: 300 },
    );
  });

  it("applies a load's chunk, column by column, as it applies the same claims one by one", () => {
    const claim = fc.record({
      campaign: fc.nat({ max: CAMPAIGNS - 1 }),
      claimant: fc.nat({ max: CLAIMANTS.length - 1 }),
      offsetUs,
      usdMicros: fc.integer({ min: 0, max: 1_000_000_000 }),
      draw: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(claim, { maxLength: 60 }), fc.array(fc.integer({ min: 0, max: 9 * DAY }), { maxLength: 4 }), (claims, advances) => {
        // As a load's chunk comes: in campaign order, each claimant once, a raffle draw with sign 0.
        const inOrder = [...claims].sort((a, b) => a.campaign - b.campaign);
        const claimants = [...new Set(inOrder.map((c) => CLAIMANTS[c.claimant]!))];
        const chunk = {
          // A campaign of the chunk's range without a claim is listed too.
          campaigns: { keys: [99, ...Array.from({ length: CAMPAIGNS }, (_, n) => 100 + n)], public_ids: ['none', ...Array.from({ length: CAMPAIGNS }, (_, n) => `p${n}`)] },
          claimants,
          claims: {
            campaign_keys: Int32Array.from(inOrder, (c) => 100 + c.campaign),
            claimed_at_us: Float64Array.from(inOrder, (c) => T * 1000 + c.offsetUs),
            usd_micros: Float64Array.from(inOrder, (c) => c.usdMicros),
            signs: Int8Array.from(inOrder, (c) => (c.draw ? 0 : 1)),
            claimant_indexes: Int32Array.from(inOrder, (c) => claimants.indexOf(CLAIMANTS[c.claimant]!)),
          },
        };
        const byColumns = new ClaimVolumeState(T);
        byColumns.applyChunk(chunk);
        const oneByOne = new ClaimVolumeState(T);
        oneByOne.apply(
          inOrder.map((c) => ({
            campaignKey: 100 + c.campaign,
            publicId: `p${c.campaign}`,
            claimant: CLAIMANTS[c.claimant]!,
            claimedAtUs: T * 1000 + c.offsetUs,
            usdMicros: c.usdMicros,
            sign: c.draw ? (0 as const) : (1 as const),
          })),
        );
        let nowMs = T;
        for (const ms of [0, ...advances]) {
          nowMs += ms;
          byColumns.advanceTo(nowMs);
          oneByOne.advanceTo(nowMs);
          expect(observed(byColumns)).toEqual(observed(oneByOne));
        }
      }),
    );
  });

  it('stays exact with many claims in the same minutes, stored out of order', () => {
    fc.assert(fc.property(fc.array(crowdedStep, { minLength: 40, maxLength: 150 }), checkScenario), { numRuns: 100 });
  });

  it('keeps its time when asked for an earlier instant', () => {
    const state = new ClaimVolumeState(T);
    state.apply([{ campaignKey: 1, publicId: 'a', claimant: address('1'), claimedAtUs: (T - HOUR + 10) * 1000, usdMicros: 5, sign: 1 }]);
    state.advanceTo(T + 20);
    state.advanceTo(T);
    expect(state.instantMs).toBe(T + 20);
    expect(state.volume(1)?.claims('1h')).toBe(0);
  });

  it('finds campaigns by any serial key, growing its index past the keys it has seen', () => {
    const state = new ClaimVolumeState(T);
    const keys = [3, 5000, 1, 70_000, 2047, 2048];
    state.apply(keys.map((campaignKey, index) => ({ campaignKey, publicId: `k${campaignKey}`, claimant: address('1'), claimedAtUs: T * 1000, usdMicros: index + 1, sign: 1 })));
    keys.forEach((key, index) => expect(state.volume(key)?.usdMicros('1h'), `key ${key}`).toBe(index + 1));
    expect(state.volume(2)).toBeUndefined();
    expect(state.volume(70_001)).toBeUndefined();
    expect(() => state.apply([{ campaignKey: -1, publicId: 'x', claimant: address('1'), claimedAtUs: T * 1000, usdMicros: 1, sign: 1 }])).toThrow(RangeError);
  });

  it('keeps campaigns beyond the rows it reserved, and their public IDs in order, across growth', () => {
    const state = new ClaimVolumeState(T);
    state.reserveRows(1500);
    const count = 4000;
    const publicId = (key: number) => `8453:0x${'0'.repeat(40)}:${(count - key) * 7}`;
    state.apply(
      Array.from({ length: count }, (_, key) => ({ campaignKey: key, publicId: publicId(key), claimant: address('1'), claimedAtUs: T * 1000, usdMicros: 5, sign: 1 as const })),
    );
    for (const key of [0, 1499, 1500, 2250, 3999]) {
      expect(state.volume(key)?.claims('1h'), `key ${key}`).toBe(1);
      expect(state.publicIds.get(state.volume(key)!.row)).toBe(publicId(key));
    }
    // All tie on volume: the ranking is the public IDs' binary order.
    const ranked = [...state.ranking('1h').keys()].map((volume) => publicId(volume.key));
    expect(ranked).toEqual(Array.from({ length: count }, (_, key) => publicId(key)).sort());
  });

  it("hands out the same contracts' volumes until a total of theirs changes", () => {
    const state = new ClaimVolumeState(T);
    state.setContracts(CONTRACTS);
    const claim = (campaignKey: number, usdMicros: number): ClaimContribution => ({
      campaignKey,
      publicId: `k${campaignKey}`,
      claimant: address('1'),
      claimedAtUs: (T - HOUR + 60_000) * 1000,
      usdMicros,
      sign: 1,
    });
    const first = state.contractVolumes();
    expect(state.contractVolumes()).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first[0])).toBe(true);
    // A campaign that targets no named contract leaves them as they were.
    state.apply([claim(102, 7)]);
    expect(state.contractVolumes()).toBe(first);
    state.apply([claim(100, 5)]);
    const second = state.contractVolumes();
    expect(second).not.toBe(first);
    expect(second[0]!.windows['1h']).toEqual({ claims: 1, usdMicros: 5 });
    // Only the contracts whose totals changed are described again: campaign 100 targets A alone.
    expect(second[0]).not.toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(second[2]).toBe(first[2]);
    // The claim leaves the hour: that changes a total too.
    state.advanceTo(T + 2 * 60_000);
    expect(state.contractVolumes()).not.toBe(second);
    expect(state.contractVolumes()[0]!.windows['1h']).toEqual({ claims: 0, usdMicros: 0 });
    expect(state.contractVolumes()[0]!.windows['6h']).toEqual({ claims: 1, usdMicros: 5 });
    // A creator's subset is described per call.
    expect(state.contractVolumes(new Set([100]))).not.toBe(state.contractVolumes(new Set([100])));
  });

  it('sizes its storage once for claims counted per minute in advance, as a load does', () => {
    const state = new ClaimVolumeState(T);
    // Three minutes, the first two in one ten-minute bucket, the third in the next hour.
    const minutes = [T - 20 * 60_000, T - 19 * 60_000, T - 5 * 60_000].map((ms) => Math.floor(ms / 60_000) * 60_000);
    const counts = [40, 25, 3];
    state.reserve(
      minutes.map((ms) => ms * 1000),
      counts,
    );
    const claims = minutes.flatMap((ms, index) =>
      Array.from({ length: counts[index]! }, (_, at) => ({ campaignKey: 7 + (at % 3), publicId: `k${7 + (at % 3)}`, claimant: address('1'), claimedAtUs: (ms + at) * 1000, usdMicros: at + 1, sign: 1 }) satisfies ClaimContribution),
    );
    // Out of time order: sizing does not assume the order claims come in.
    state.apply(claims.reverse());
    expect(state.size).toBe(68);
    expect(state.capacity).toBe(68);
    const total = claims.filter((claim) => claim.campaignKey === 7);
    expect(state.volume(7)?.claims('1h')).toBe(total.length);
    expect(state.volume(7)?.usdMicros('1h')).toBe(total.reduce((sum, claim) => sum + claim.usdMicros, 0));
  });

  it('forgets the claimants whose claims have all left the longest window, keeping the others exact', () => {
    const state = new ClaimVolumeState(T);
    const claim = (claimant: string, atMs: number, usdMicros: number): ClaimContribution => ({
      campaignKey: 1,
      publicId: 'a',
      claimant,
      claimedAtUs: atMs * 1000,
      usdMicros,
      sign: 1,
    });
    const early = Array.from({ length: 3000 }, (_, n) => claim(`0x${n.toString(16).padStart(40, '0')}`, T - 6 * DAY, 1));
    state.apply([...early, claim(address('feed'), T - 6 * DAY, 2), claim(address('feed'), T + 2 * DAY, 3), claim(address('beef'), T + 3 * DAY, 4)]);
    expect(state.claimantTotals('7d').count).toBe(3002);
    // A day and a bit later the early claims have left the week, and their buckets are dropped.
    state.advanceTo(T + 2 * DAY + 20 * 60_000);
    const totals = state.claimantTotals('7d');
    expect(totals.count).toBe(2);
    const feed = totals.keys.keyOf(address('feed'))!;
    expect([totals.claims[feed], totals.usdMicros[feed]]).toEqual([1, 3]);
    state.advanceTo(T + 3 * DAY);
    const later = state.claimantTotals('24h');
    expect([later.claims[(later.keys.keyOf(address('beef')) ?? -1)], later.usdMicros[(later.keys.keyOf(address('beef')) ?? -1)]]).toEqual([1, 4]);
    expect(later.claims[(later.keys.keyOf(address('feed')) ?? -1)]).toBe(0);
    expect(state.claimantTotals('7d').claims[(later.keys.keyOf(address('feed')) ?? -1)]).toBe(1);
  });

  it('forgets claims once they are older than the longest window', () => {
    const state = new ClaimVolumeState(T);
    state.apply([{ campaignKey: 1, publicId: 'a', claimant: address('1'), claimedAtUs: T * 1000, usdMicros: 5, sign: 1 }]);
    expect(state.size).toBe(1);
    // Buckets of ten minutes are forgotten whole, once all of theirs is older than a week.
    state.advanceTo(T + 7 * DAY + 20 * 60_000);
    expect(state.size).toBe(0);
    expect(state.volume(1)?.claims('7d')).toBe(0);
  });
});

/**
 * Named contracts over the scenario's campaigns (keys 100 to 103): one campaign targets two
 * contracts, one none, and one contract only a campaign that never has claims.
 */
const CONTRACTS: ContractTargets[] = [
  { chainId: 8453, address: '0xa', name: 'A', campaignKeys: Int32Array.of(101, 100), blockTimestamps: Float64Array.of(20, 10) },
  { chainId: 8453, address: '0xb', name: 'B', campaignKeys: Int32Array.of(103, 101), blockTimestamps: Float64Array.of(40, 20) },
  { chainId: 1, address: '0xc', name: 'C', campaignKeys: Int32Array.of(999), blockTimestamps: Float64Array.of(5) },
];

/**
 * Applies the steps one by one, comparing with a plain aggregation of the claims after each. The
 * named contracts are set halfway, as a load does after its claims: over the campaigns there are
 * by then, and those that appear afterwards.
 */
function checkScenario(scenario: Step[]): void {
  let nowMs = T;
  const state = new ClaimVolumeState(nowMs);
  const claims: ClaimContribution[] = [];
  let contracts: ContractTargets[] = [];
  // Room sized for claims that may or may not come: sizing never changes what is counted.
  state.reserve([(T - HOUR) * 1000, T * 1000, (T + 61_000) * 1000], [3, 1, 2]);
  for (const [index, current] of scenario.entries()) {
    if (index === Math.floor(scenario.length / 2)) {
      contracts = CONTRACTS;
      state.setContracts(contracts);
      // What a load does once its claims are in: the buckets give back their spare room.
      state.trim();
    }
    if (current.kind !== 'advance') {
      const changes = current.kind === 'batch' ? current.changes : [current];
      const applied: ClaimContribution[] = [];
      for (const change of changes) {
        if (change.kind === 'add') {
          const claim: ClaimContribution = {
            campaignKey: 100 + change.campaign,
            publicId: `8453:0xcore:${change.campaign}`,
            claimant: CLAIMANTS[change.claimant]!,
            claimedAtUs: nowMs * 1000 + change.offsetUs,
            usdMicros: change.usdMicros,
            sign: 1,
          };
          claims.push(claim);
          applied.push(claim);
        } else if (claims.length > 0 && change.kind === 'remove') {
          const [removed] = claims.splice(change.pick % claims.length, 1);
          applied.push({ ...removed!, sign: -1 });
        } else if (claims.length > 0 && change.kind === 'revalue') {
          const at = change.pick % claims.length;
          applied.push({ ...claims[at]!, usdMicros: change.usdMicros - claims[at]!.usdMicros, sign: 0 });
          claims[at] = { ...claims[at]!, usdMicros: change.usdMicros };
        }
      }
      state.apply(applied);
    } else {
      nowMs += current.ms;
      state.advanceTo(nowMs);
    }
    expectTotals(state, claims, nowMs, contracts);
  }
}

function expectTotals(state: ClaimVolumeState, claims: ClaimContribution[], nowMs: number, contracts: ContractTargets[]): void {
  const expected = (key: number, window: ClaimWindow) => {
    const inWindow = claims.filter(
      (claim) =>
        claim.campaignKey === key &&
        claim.claimedAtUs > (nowMs - CLAIM_WINDOWS[window]) * 1000 &&
        claim.claimedAtUs <= nowMs * 1000,
    );
    return { claims: inWindow.length, usdMicros: inWindow.reduce((sum, claim) => sum + claim.usdMicros, 0) };
  };
  for (let campaign = 0; campaign < CAMPAIGNS; campaign++) {
    const key = 100 + campaign;
    for (const window of WINDOW_NAMES) {
      const volume = state.volume(key);
      const actual = { claims: volume?.claims(window) ?? 0, usdMicros: volume?.usdMicros(window) ?? 0 };
      expect(actual, `campaign ${campaign}, ${window}`).toEqual(expected(key, window));
    }
  }
  for (const window of CLAIMANT_WINDOWS) {
    const totals = state.claimantTotals(window);
    for (const claimant of CLAIMANTS) {
      const inWindow = claims.filter(
        (claim) => claim.claimant === claimant && claim.claimedAtUs > (nowMs - CLAIM_WINDOWS[window]) * 1000 && claim.claimedAtUs <= nowMs * 1000,
      );
      const key = (totals.keys.keyOf(claimant) ?? -1);
      const actual = key < 0 ? { claims: 0, usdMicros: 0 } : { claims: totals.claims[key], usdMicros: totals.usdMicros[key] };
      expect(actual, `claimant ${claimant}, ${window}`).toEqual({ claims: inWindow.length, usdMicros: inWindow.reduce((sum, claim) => sum + claim.usdMicros, 0) });
    }
  }
  for (const window of RANKED_WINDOWS) {
    const ranked = [...state.ranking(window).keys()];
    const withClaims = ranked.filter((volume) => volume.claims(window) > 0);
    expect(ranked, `${window} ranking lists only campaigns with claims in it`).toEqual(withClaims);
    expect(ranked.map((volume) => volume.key)).toEqual([...ranked].sort(byVolume(window, state.publicIds)).map((volume) => volume.key));
    const listed = new Set(ranked.map((volume) => volume.key));
    for (let campaign = 0; campaign < CAMPAIGNS; campaign++) {
      expect(listed.has(100 + campaign), `campaign ${campaign} in the ${window} ranking`).toBe(expected(100 + campaign, window).claims > 0);
    }
    for (const volume of ranked) expect(volume.usdMicros(window)).toBe(expected(volume.key, window).usdMicros);
  }
  const contractTotals = (keys: ArrayLike<number>, window: ClaimWindow) =>
    Array.from(keys).reduce(
      (sum, key) => {
        const { claims: count, usdMicros } = expected(key, window);
        return { claims: sum.claims + count, usdMicros: sum.usdMicros + usdMicros };
      },
      { claims: 0, usdMicros: 0 },
    );
  const all = state.contractVolumes();
  if (contracts.length === 0) {
    expect(all).toEqual([]);
    return;
  }
  expect(all.map((volume) => [volume.address, volume.campaignCount, volume.newestBlockTimestamp])).toEqual([
    ['0xa', 2, 20],
    ['0xb', 2, 40],
    ['0xc', 1, 5],
  ]);
  for (const [index, volume] of all.entries()) {
    for (const window of WINDOW_NAMES) {
      expect(volume.windows[window], `${volume.address}, ${window}`).toEqual(contractTotals(CONTRACTS[index]!.campaignKeys, window));
    }
  }
  // Over one campaign's targets only: contracts A and B, with that campaign's claims.
  const ofOne = state.contractVolumes(new Set([101]));
  expect(ofOne.map((volume) => [volume.address, volume.campaignCount, volume.newestBlockTimestamp])).toEqual([
    ['0xa', 1, 20],
    ['0xb', 1, 20],
  ]);
  for (const volume of ofOne) {
    for (const window of WINDOW_NAMES) expect(volume.windows[window]).toEqual(expected(101, window));
  }
}

/** What a state shows: its size, every campaign's and claimant's totals, the rankings in order. */
function observed(state: ClaimVolumeState) {
  const campaigns = Array.from({ length: CAMPAIGNS + 1 }, (_, n) => {
    const volume = state.volume(99 + n);
    return WINDOW_NAMES.map((window) => [volume?.claims(window) ?? 0, volume?.usdMicros(window) ?? 0]);
  });
  const claimants = CLAIMANT_WINDOWS.map((window) => {
    const totals = state.claimantTotals(window);
    return {
      listed: totals.listed,
      totals: CLAIMANTS.map((claimant) => {
        const key = totals.keys.keyOf(claimant) ?? -1;
        return key < 0 ? [0, 0] : [totals.claims[key], totals.usdMicros[key]];
      }),
    };
  });
  const rankings = RANKED_WINDOWS.map((window) => [...state.ranking(window).keys()].map((volume) => volume.key));
  return { size: state.size, campaigns, claimants, rankings };
}
