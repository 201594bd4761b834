import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BLOCK_SHIFT } from '../../src/claim-volumes/block-bounds.js';
import { type BoardEntry, type BoardMetric, type BoardRequest, claimantBoardPage } from '../../src/claim-volumes/claimant-board.js';
import { CLAIMANT_WINDOWS, type ClaimContribution, ClaimVolumeState } from '../../src/claim-volumes/state.js';

const T = Date.UTC(2026, 5, 1, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Enough claimants for several blocks of keys, so that pages are found by skipping blocks. */
const CLAIMANTS = 5 * (1 << BLOCK_SHIFT) + 17;
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** Every claimant with a claim in the window, by the metric then address, ranked as the database ranks. */
function reference(state: ClaimVolumeState, window: (typeof CLAIMANT_WINDOWS)[number], by: BoardMetric): BoardEntry[] {
  const totals = state.claimantTotals(window);
  const listed: BoardEntry[] = [];
  for (let key = 0; key < totals.count; key++) {
    if (totals.claims[key]! > 0) listed.push({ rank: null, address: totals.keys.address(key), claims: totals.claims[key]!, usdMicros: totals.usdMicros[key]! });
  }
  const value = (entry: BoardEntry) => (by === 'usd' ? entry.usdMicros : entry.claims);
  listed.sort((a, b) => value(b) - value(a) || (a.address < b.address ? -1 : 1));
  return listed.map((entry) => ({ ...entry, rank: listed.filter((other) => value(other) > value(entry)).length + 1 }));
}

type Change = { kind: 'claims'; claimants: number[]; ageMs: number; usdMicros: number } | { kind: 'remove'; pick: number } | { kind: 'advance'; ms: number };

const change: fc.Arbitrary<Change> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('claims' as const),
      // Some claimants often, so that a few blocks hold the highest totals.
      claimants: fc.array(fc.oneof(fc.nat({ max: 40 }), fc.nat({ max: CLAIMANTS - 1 })), { minLength: 1, maxLength: 60 }),
      ageMs: fc.integer({ min: 0, max: 8 * DAY }),
      // Few values, so that equal totals (ties by address) are common.
      usdMicros: fc.constantFrom(0, 1, 2, 5, 1_000_000, 7_500_000),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(HOUR, 6 * HOUR, DAY, 3 * DAY) }) },
);

const ask = fc.record({
  window: fc.constantFrom(...CLAIMANT_WINDOWS),
  by: fc.constantFrom<BoardMetric>('usd', 'claims'),
  offset: fc.oneof(fc.constant(0), fc.nat({ max: 300 })),
  limit: fc.integer({ min: 1, max: 50 }),
  cursorAt: fc.option(fc.nat(), { nil: undefined }),
  count: fc.boolean(),
  addressAt: fc.option(fc.nat(), { nil: undefined }),
});

describe('claimantBoardPage', () => {
  it('equals a full sort of the claimants after every change, while totals rise and fall under its block bounds', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(change, fc.array(ask, { minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 25 }), (steps) => {
        let nowMs = T;
        const state = new ClaimVolumeState(nowMs);
        const claims: ClaimContribution[] = [];
        for (const [next, asks] of steps) {
          if (next.kind === 'claims') {
            const added = next.claimants.map(
              (claimant): ClaimContribution => ({ campaignKey: 1, publicId: 'a', claimant: address(claimant), claimedAtUs: (nowMs - next.ageMs) * 1000, usdMicros: next.usdMicros, sign: 1 }),
            );
            claims.push(...added);
            state.apply(added);
          } else if (next.kind === 'remove' && claims.length > 0) {
            const [removed] = claims.splice(next.pick % claims.length, 1);
            state.apply([{ ...removed!, sign: -1 }]);
          } else if (next.kind === 'advance') {
            nowMs += next.ms;
            state.advanceTo(nowMs);
          }
          for (const { window, by, offset, limit, cursorAt, count, addressAt } of asks) {
            const all = reference(state, window, by);
            const cursor = cursorAt === undefined || all.length === 0 ? undefined : all[cursorAt % all.length]!;
            const page: BoardRequest['page'] =
              cursor === undefined ? { offset } : { after: { key: String(by === 'usd' ? cursor.usdMicros : cursor.claims), id: cursor.address } };
            const from = cursor === undefined ? offset : all.indexOf(cursor) + 1;
            const asked = addressAt === undefined ? undefined : address(addressAt % (CLAIMANTS + 10));
            const request: BoardRequest = { by, limit, page, count, ...(asked === undefined ? {} : { address: asked }) };
            const board = claimantBoardPage(state.claimantTotals(window), request);
            expect(board.entries).toEqual(all.slice(from, from + limit));
            expect(board.more).toBe(all.length > from + limit);
            expect(board.total).toBe(count ? all.length : undefined);
            if (asked !== undefined) {
              expect(board.addressEntry).toEqual(all.find((entry) => entry.address === asked) ?? { rank: null, address: asked, claims: 0, usdMicros: 0 });
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('reads on past a block whose bound equals the last held, where an equal total with a lower address may be', () => {
    const state = new ClaimVolumeState(T);
    // Equal totals everywhere; keys given in descending address order, so the lowest address has the last key.
    state.apply(Array.from({ length: CLAIMANTS }, (_, n) => ({ campaignKey: 1, publicId: 'a', claimant: address(CLAIMANTS - n), claimedAtUs: (T - HOUR) * 1000, usdMicros: 5, sign: 1 as const })));
    const totals = state.claimantTotals('7d');
    for (const by of ['usd', 'claims'] as const) {
      // The first search leaves every block its exact bound; the second meets them all equal.
      for (let search = 0; search < 2; search++) {
        const board = claimantBoardPage(totals, { by, limit: 3, page: { offset: 0 }, count: false });
        expect(board.entries.map((entry) => [entry.address, entry.rank])).toEqual([
          [address(1), 1],
          [address(2), 1],
          [address(3), 1],
        ]);
      }
    }
  });

  it('reads only the blocks that can hold the first page', () => {
    const state = new ClaimVolumeState(T);
    // One claim each; the two highest in the last block.
    const claim = (n: number, usdMicros: number): ClaimContribution => ({ campaignKey: 1, publicId: 'a', claimant: address(n), claimedAtUs: (T - HOUR) * 1000, usdMicros, sign: 1 });
    state.apply(Array.from({ length: CLAIMANTS }, (_, n) => claim(n, n >= CLAIMANTS - 2 ? 1_000_000 + n : 1)));
    const totals = state.claimantTotals('7d');
    const request: BoardRequest = { by: 'usd', limit: 1, page: { offset: 0 }, count: false };
    // The first search visits every block and leaves each its exact bound.
    expect(claimantBoardPage(totals, request).entries.map((entry) => entry.address)).toEqual([address(CLAIMANTS - 1)]);
    // The second reads the last block alone (its bound is above every other's), then stops.
    const blocksRead = new Set<number>();
    const watched = new Proxy(totals.claims, {
      get: (target, property) => {
        if (typeof property !== 'string' || !/^\d+$/.test(property)) throw new Error(`the board reads claims[${String(property)}]`);
        blocksRead.add(Number(property) >> BLOCK_SHIFT);
        return target[Number(property)];
      },
    });
    expect(claimantBoardPage({ ...totals, claims: watched }, request).entries.map((entry) => entry.address)).toEqual([address(CLAIMANTS - 1)]);
    expect([...blocksRead]).toEqual([CLAIMANTS >> BLOCK_SHIFT]);
    // A total that rises raises its block's bound: a claim, then a revaluation, in the first block.
    const top = (by: BoardMetric) => claimantBoardPage(state.claimantTotals('7d'), { ...request, by }).entries[0]?.address;
    state.apply([claim(3, 5_000_000), claim(7, 0)]);
    expect([top('usd'), top('claims')]).toEqual([address(3), address(3)]);
    state.apply([{ ...claim(4, 9_000_000), sign: 0 }]);
    expect(top('usd')).toBe(address(4));
    state.apply([claim(600, 0), claim(600, 0)]);
    expect(top('claims')).toBe(address(600));
    // A total counted as claims come and go, not by reading the claimants.
    expect(claimantBoardPage(totals, { ...request, count: true }).total).toBe(CLAIMANTS);
    state.apply([{ ...claim(6, 1), sign: -1 }]);
    expect(claimantBoardPage(state.claimantTotals('7d'), { ...request, count: true }).total).toBe(CLAIMANTS - 1);
  });

  it('searches the claimants given new keys when those whose claims all left the week are forgotten', () => {
    const state = new ClaimVolumeState(T);
    const claim = (n: number, ageMs: number, usdMicros: number): ClaimContribution => ({
      campaignKey: 1,
      publicId: 'a',
      claimant: address(n),
      claimedAtUs: (T - ageMs) * 1000,
      usdMicros,
      sign: 1,
    });
    // Many claimants about to leave the week, one small claim each, then those that stay, higher.
    const leaving = 12 * (1 << BLOCK_SHIFT);
    const staying = 600;
    state.apply(Array.from({ length: leaving }, (_, n) => claim(n, 6 * DAY + 12 * HOUR, 1)));
    state.apply(Array.from({ length: staying }, (_, n) => claim(leaving + n, HOUR, 2 + n)));
    const request: BoardRequest = { by: 'usd', limit: 3, page: { offset: 0 }, count: true };
    // A search at the start leaves every block its exact bound: 1 for the blocks of those leaving.
    expect(claimantBoardPage(state.claimantTotals('7d'), request).entries.map((entry) => entry.address)).toEqual(
      [1, 2, 3].map((n) => address(leaving + staying - n)),
    );
    // A day on, those leaving have left: their keys are given back and those staying take the first.
    state.advanceTo(T + DAY);
    const totals = state.claimantTotals('7d');
    expect(totals.count).toBe(staying);
    const board = claimantBoardPage(totals, request);
    expect(board.entries).toEqual(reference(state, '7d', 'usd').slice(0, 3));
    expect(board.entries.map((entry) => entry.address)).toEqual([1, 2, 3].map((n) => address(leaving + staying - n)));
    expect(board.total).toBe(staying);
  });
});
