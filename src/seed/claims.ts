import { ETH_PRICE_USD } from './catalog.js';
import type { ClaimTarget, IncentiveCapacity } from './campaigns.js';
import type { Random } from './random.js';
import { HOUR_MS } from './reference.js';
import type { Rows } from './rows.js';

type ClaimRow = Rows['claims'][number];

const DAY_MS = 24 * HOUR_MS;
/** Claims fall in the last seven days before `now`, so every trending window has data. */
export const CLAIM_HISTORY_MS = 7 * DAY_MS;
const DEMO_STREAK_DAYS = 5;

export interface ClaimPlan {
  targets: ClaimTarget[];
  claimants: string[];
  demoUserAddress: string;
  count: number;
  now: number;
}

/**
 * Yields `count` claims (fewer only if every incentive runs dry) in batches. Claims never exceed
 * an incentive's claim limit or budget; campaigns marked sold out are paid out to the last unit, so
 * the data has exhausted campaigns. Activity is skewed: a few campaigns get most claims, as in life.
 */
export function* generateClaims(random: Random, plan: ClaimPlan, batchSize: number): Generator<ClaimRow[]> {
  const { now } = plan;
  const historyStart = now - CLAIM_HISTORY_MS;
  const claimable = plan.targets.filter(
    (target) => target.incentives.length > 0 && target.closesAt > Math.max(target.opensAt, historyStart),
  );
  const windowOf = (target: ClaimTarget) => ({ from: Math.max(target.opensAt, historyStart), to: target.closesAt });

  let batch: ClaimRow[] = [];
  let produced = 0;
  const emit = (claim: ClaimRow | null) => {
    if (claim === null) return false;
    batch.push(claim);
    produced++;
    return true;
  };
  const claimAt = (target: ClaimTarget, time: number, claimant: string, capacity: IncentiveCapacity) =>
    makeClaim(random, target, capacity, claimant, time);
  const randomClaimant = () => (random.chance(0.85) ? random.pick(plan.claimants) : random.address());
  const randomTime = (target: ClaimTarget) => {
    const { from, to } = windowOf(target);
    return from + Math.floor(random.next() * (to - from));
  };

  // 1. Sold-out campaigns: pay every incentive out completely (at most half of all claims).
  for (const target of claimable.filter((candidate) => candidate.soldOut)) {
    for (const capacity of target.incentives) {
      while (hasCapacity(capacity) && produced < plan.count / 2) {
        emit(claimAt(target, randomTime(target), randomClaimant(), capacity));
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
  }

  // 2. The demo user claimed on each of the last few UTC days, so its profile shows a live streak.
  const open = claimable.filter((target) => !target.soldOut);
  const todayStart = Math.floor(now / DAY_MS) * DAY_MS;
  for (let day = 0; day < DEMO_STREAK_DAYS && open.length > 0 && produced < plan.count; day++) {
    const dayStart = todayStart - day * DAY_MS;
    const time = dayStart + Math.floor(random.next() * Math.min(DAY_MS, now - dayStart));
    for (let attempt = 0; attempt < 200; attempt++) {
      const target = random.pick(open);
      const { from, to } = windowOf(target);
      const capacity = random.pick(target.incentives);
      if (time >= from && time < to && hasCapacity(capacity)) {
        emit(claimAt(target, time, plan.demoUserAddress, capacity));
        break;
      }
    }
  }

  // 3. Everything else, skewed towards a few hot campaigns.
  const hotness = random.sample(open, open.length);
  let misses = 0;
  while (produced < plan.count && hotness.length > 0 && misses < plan.count * 3) {
    const target = hotness[Math.floor(hotness.length * random.next() ** 3)]!;
    const capacity = random.pick(target.incentives);
    if (!hasCapacity(capacity)) {
      misses++;
      continue;
    }
    emit(claimAt(target, randomTime(target), randomClaimant(), capacity));
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function hasCapacity(capacity: IncentiveCapacity): boolean {
  if (capacity.remainingClaims !== null && capacity.remainingClaims <= 0n) return false;
  if (capacity.remainingBudget !== null && capacity.remainingBudget <= 0n) return false;
  return true;
}

/** One claim against `capacity`, which it consumes. */
function makeClaim(random: Random, target: ClaimTarget, capacity: IncentiveCapacity, claimant: string, time: number): ClaimRow | null {
  let amount = capacity.fixedAmount ?? randomAmount(random, capacity.maxAmount);
  if (capacity.remainingBudget !== null) {
    if (amount > capacity.remainingBudget) amount = capacity.remainingBudget;
    capacity.remainingBudget -= amount;
  }
  if (capacity.remainingClaims !== null) capacity.remainingClaims -= 1n;
  // Nothing left to pay; a RAFFLE entry (a fixed amount of 0) is a claim all the same.
  if (amount <= 0n && capacity.fixedAmount !== 0n) return null;

  const usdMicros = usdMicrosOf(amount, capacity.decimals, capacity.priceUsd);
  const txHash = `0x${random.hex(32)}`;
  return {
    campaignKey: target.key,
    chainId: target.chainId,
    incentivePosition: capacity.position,
    claimant,
    amount: amount.toString(),
    usdValue: formatMicros(usdMicros),
    ethValueWei: ((usdMicros * 10n ** 18n) / ETH_PRICE_MICROS).toString(),
    txHash,
    // One claim per (random) transaction: any log index keeps the natural key unique. Taken from the
    // hash rather than drawn, so the rest of the data set stays what the same seed always gave.
    logIndex: Number.parseInt(txHash.slice(2, 4), 16),
    claimedAt: new Date(time),
  };
}

/** Between a tenth of the maximum and the maximum, and never zero. */
function randomAmount(random: Random, max: bigint): bigint {
  const tenth = max / 10n;
  const amount = tenth + ((max - tenth) * BigInt(Math.floor(random.next() * 1000))) / 1000n;
  return amount > 0n ? amount : 1n;
}

const ETH_PRICE_MICROS = BigInt(Math.round(ETH_PRICE_USD * 1_000_000));

/** USD value in millionths, exactly from the base-unit amount. */
export function usdMicrosOf(amount: bigint, decimals: number, priceUsd: number | null): bigint {
  if (priceUsd === null) return 0n;
  const pricePico = BigInt(Math.round(priceUsd * 1e12));
  return (amount * pricePico) / 10n ** BigInt(decimals) / 1_000_000n;
}

export function formatMicros(micros: bigint): string {
  return `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, '0')}`;
}
