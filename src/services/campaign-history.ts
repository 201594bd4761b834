import { entityTag } from '../entity-tag.js';
import { badRequest } from '../errors.js';
import { parseInstant } from '../instant.js';
import { type JsonBuffer, JsonBytes } from '../json/json-bytes.js';
import type { HistoryIncentive, HistoryRepository, HistoryRows, HistoryWindow } from '../repositories/history.repository.js';
import {
  BURN_WINDOW_DAYS,
  type CampaignHistory,
  DEFAULT_HISTORY_BUCKETS,
  type HistoryBucket,
  type HistoryInterval,
  type HistoryQuery,
  MAX_HISTORY_BUCKETS,
} from '../schemas/history.js';
import type { HistoryCache, KeptHistory, ProjectionPart } from './history-cache.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STEP: Record<HistoryInterval, number> = { hour: HOUR, day: DAY };
const BURN_WINDOW = BURN_WINDOW_DAYS * DAY;

/** UTC buckets are whole multiples of their size since the epoch (no leap seconds in epoch time). */
const bucketStart = (at: number, step: number) => Math.floor(at / step) * step;

/** The buckets a query asks for, or a 400 that says what is wrong with it. */
export function historyWindow(query: HistoryQuery, now: Date): HistoryWindow {
  const interval = query.interval ?? 'day';
  const step = STEP[interval];
  const instant = (name: 'from' | 'to') => {
    const text = query[name];
    if (text === undefined) return undefined;
    const at = parseInstant(text);
    if (at === undefined) throw badRequest(`${name} is not a date that exists: ${text}`);
    return at;
  };
  const toAt = instant('to') ?? now.getTime();
  const last = bucketStart(toAt, step);
  const fromAt = instant('from') ?? last - (DEFAULT_HISTORY_BUCKETS - 1) * step;
  if (fromAt > toAt) throw badRequest('from must not be after to');
  const first = bucketStart(fromAt, step);
  const buckets = (last - first) / step + 1;
  if (buckets > MAX_HISTORY_BUCKETS) {
    throw badRequest(`from and to span ${buckets} ${interval}s: at most ${MAX_HISTORY_BUCKETS} buckets; narrow the range or use a larger interval`);
  }
  const burnTo = bucketStart(now.getTime(), HOUR);
  return { interval, from: new Date(first), to: new Date(last + step), now, burnFrom: new Date(burnTo - BURN_WINDOW), burnTo: new Date(burnTo) };
}

export interface HistoryDeps {
  history: HistoryRepository;
  cache: HistoryCache;
}

/**
 * GET /campaigns/{id}/history's answer as JSON bytes; null for an unknown campaign. A kept answer
 * is served while the campaign's history version is the one it was built at (HistoryCache). Its
 * projection counts from the start of the request's second, so it is written once a second and
 * every request of that second gets the same bytes and ETag.
 */
export async function campaignHistory(
  { history, cache }: HistoryDeps,
  publicId: string,
  window: HistoryWindow,
): Promise<{ body: JsonBuffer<CampaignHistory>; etag: string } | null> {
  const key = `${publicId} ${window.interval} ${window.from.getTime()} ${window.to.getTime()} ${window.burnTo.getTime()}`;
  let kept: KeptHistory | undefined;
  if (cache.keeps) {
    const version = await history.version(publicId);
    if (version === undefined) return null;
    kept = cache.get(key, version);
  }
  if (kept === undefined) {
    const rows = await history.findHistory(publicId, window);
    if (rows === null) return null;
    kept = keptHistory(publicId, window, rows);
    if (rows.version !== null) cache.set(key, kept);
  }
  const second = Math.floor(window.now.getTime() / 1000) * 1000;
  if (kept.answered?.second !== second) {
    const body = new JsonBytes().bytes(kept.head).text(projectionText(kept.projection, second)).toBuffer();
    kept.answered = { second, body, etag: entityTag(body) };
  }
  return { body: kept.answered.body, etag: kept.answered.etag };
}

/**
 * A campaign's history: every bucket of the window, with the claims, claimants and payments of its
 * claims, and the budget left at its end. The budget left is the budget as it stands now less what
 * was paid through the bucket's end, so a top-up or clawback shows from when it is read, not from
 * when it happened. The projection divides what is left now by the average paid per day over the
 * BURN_WINDOW_DAYS days of whole UTC hours before the current hour (the hours the history keeps),
 * per token; the campaign runs out when its last budgeted token does.
 */
function keptHistory(publicId: string, window: HistoryWindow, rows: HistoryRows): KeptHistory {
  const step = STEP[window.interval];
  const paying = rows.incentives.filter((incentive): incentive is HistoryIncentive & { token: string } => incentive.token !== null);
  const tokens = [...new Map(paying.map((incentive) => [incentive.token, incentive])).values()];
  const budgeted = paying.filter((incentive) => incentive.budget !== null);
  const budgetedTokens = tokens.filter((token) => budgeted.some((incentive) => incentive.token === token.token));
  const tokenOf = new Map(paying.map((incentive) => [incentive.position, incentive.token]));

  // What each budgeted incentive had paid before the window: all it paid, less what it paid since.
  const paidBefore = new Map(budgeted.map((incentive) => [incentive.position, BigInt(incentive.paid) - BigInt(incentive.paidSinceFrom)]));
  const people = new Map(rows.people.map(([at, claimants, newClaimants]) => [at, { claimants, newClaimants }]));
  const claimsAt = new Map<number, number>();
  const paidAt = new Map<number, { position: number; amount: string; usd: number }[]>();
  for (const [at, position, claims, amount, usd] of rows.paid) {
    claimsAt.set(at, (claimsAt.get(at) ?? 0) + claims);
    const payments = paidAt.get(at) ?? [];
    payments.push({ position, amount, usd });
    paidAt.set(at, payments);
  }

  // Most buckets of a long window pay nothing: they share one zero `paid` list, and the budget left
  // is computed again only after a bucket that paid.
  const zeroPaid = tokens.map(({ token }) => ({ token, amount: '0', usd: 0 }));
  const leftNow = () =>
    budgetedTokens.map(({ token }) => {
      let amount = 0n;
      for (const incentive of budgeted) if (incentive.token === token) amount += max0(BigInt(incentive.budget!) - paidBefore.get(incentive.position)!);
      return { token, amount: amount.toString() };
    });
  let budgetLeft = leftNow();
  const isoStart = isoStarts();
  const buckets: HistoryBucket[] = [];
  for (let at = window.from.getTime(); at < window.to.getTime(); at += step) {
    const payments = paidAt.get(at);
    let paid = zeroPaid;
    if (payments) {
      const sums = new Map(tokens.map(({ token }) => [token, { amount: 0n, usd: 0 }]));
      for (const payment of payments) {
        const sum = sums.get(tokenOf.get(payment.position)!);
        if (sum) {
          sum.amount += BigInt(payment.amount);
          sum.usd += payment.usd;
        }
        if (paidBefore.has(payment.position)) paidBefore.set(payment.position, paidBefore.get(payment.position)! + BigInt(payment.amount));
      }
      paid = [...sums].map(([token, sum]) => ({ token, amount: sum.amount.toString(), usd: sum.usd }));
      budgetLeft = leftNow();
    }
    buckets.push({
      start: isoStart(at),
      claims: claimsAt.get(at) ?? 0,
      claimants: people.get(at)?.claimants ?? 0,
      newClaimants: people.get(at)?.newClaimants ?? 0,
      paid,
      budgetLeft,
    });
  }

  const projection = budgetedTokens.map(({ token }): ProjectionPart => {
    const mine = budgeted.filter((incentive) => incentive.token === token);
    const left = mine.reduce((sum, incentive) => sum + max0(BigInt(incentive.budget!) - BigInt(incentive.paid)), 0n);
    const burned = mine.reduce((sum, incentive) => sum + BigInt(incentive.paidInBurnWindow), 0n);
    return {
      token,
      left: left.toString(),
      paidPerDay: (burned / BigInt(BURN_WINDOW_DAYS)).toString(),
      runsForMs: left > 0n && burned > 0n ? Number((left * BigInt(BURN_WINDOW)) / burned) : null,
    };
  });
  const head = historyHead({
    campaignId: publicId,
    interval: window.interval,
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    tokens: tokens.map(({ token, symbol, decimals }) => ({ token, symbol, decimals })),
    buckets,
  });
  return { version: rows.version ?? '', head, projection };
}

/**
 * The answer's JSON up to its projection, in the schema's order. A month by hour is 720 buckets,
 * most of them sharing one `paid` and one `budgetLeft` list (the lists of buckets that paid nothing
 * are reused): each distinct list is serialized once, and the buckets are one text of their few
 * numbers around them, encoded in one go (a piece each would cost a call into the encoder per piece).
 */
function historyHead({ campaignId, interval, from, to, tokens, buckets }: Omit<CampaignHistory, 'projection'>): Buffer {
  const serialized = new Map<object, string>();
  const once = (list: object) => {
    let text = serialized.get(list);
    if (text === undefined) serialized.set(list, (text = JSON.stringify(list)));
    return text;
  };
  let bucketsText = '';
  for (const { start, claims, claimants, newClaimants, paid, budgetLeft } of buckets) {
    bucketsText += `${bucketsText === '' ? '' : ','}{"start":"${start}","claims":${claims},"claimants":${claimants},"newClaimants":${newClaimants},"paid":${once(paid)},"budgetLeft":${once(budgetLeft)}}`;
  }
  return new JsonBytes()
    .text(`{"campaignId":${JSON.stringify(campaignId)},"interval":"${interval}","from":"${from}","to":"${to}","tokens":${JSON.stringify(tokens)},"buckets":[`)
    .text(bucketsText)
    .text('],"projection":')
    .toBuffer();
}

/** The projection from `now` (epoch milliseconds), and the answer's closing brace. */
function projectionText(parts: readonly ProjectionPart[], now: number): string {
  const tokens: CampaignHistory['projection']['tokens'] = parts.map(({ token, left, paidPerDay, runsForMs }) => {
    const exhaustsAt = runsForMs === null ? undefined : now + runsForMs;
    return { token, left, paidPerDay, exhaustsAt: exhaustsAt === undefined || exhaustsAt > MAX_DATE ? null : new Date(exhaustsAt).toISOString() };
  });
  const runsOut = tokens.length > 0 && tokens.every((token) => token.exhaustsAt !== null);
  const projection: CampaignHistory['projection'] = {
    exhaustsAt: runsOut ? tokens.map((token) => token.exhaustsAt!).sort().at(-1)! : null,
    tokens,
  };
  return `${JSON.stringify(projection)}}`;
}


const HOUR_TEXTS = Array.from({ length: 24 }, (_, hour) => `${String(hour).padStart(2, '0')}:00:00.000Z`);

/**
 * Bucket starts as toISOString() writes them, for starts given in order: the date is formatted once
 * per day (a month by hour is 720 starts).
 */
function isoStarts(): (at: number) => string {
  let day = { start: Number.NaN, text: '' };
  return (at) => {
    const dayStart = bucketStart(at, DAY);
    if (day.start !== dayStart) day = { start: dayStart, text: new Date(dayStart).toISOString().slice(0, 11) };
    return day.text + HOUR_TEXTS[(at - dayStart) / HOUR]!;
  };
}

/** The last instant of year 9999, the last an ISO 8601 date-time writes plainly: a budget that outlasts it never runs out. */
const MAX_DATE = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const max0 = (value: bigint) => (value > 0n ? value : 0n);
