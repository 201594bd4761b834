import { BaseError, type Hex, type Log, type PublicClient, ResponseBodyTooLargeError, toEventSelector } from 'viem';
import { boostCoreEvents, incentiveClaimedEvent } from './abi.js';
import type { Rpc } from './rpc.js';

/**
 * eth_getLogs over a block range, split in halves when the node refuses the range as too large
 * (each provider words it differently; the patterns below are the common ones), retried otherwise.
 */

const TOO_LARGE = [
  /block range/i,
  /range (is )?too (large|wide|big)/i,
  /too many (results|logs|blocks)/i,
  /more than \d+ (results|logs)/i,
  /response size/i,
  /limit exceeded/i,
  /exceed(s|ed)? (the )?(max|limit)/i,
  /query timeout/i,
];

export function isRangeTooLarge(error: unknown): boolean {
  // The answer was larger than the client accepts: a smaller range gives a smaller answer.
  if (error instanceof BaseError && error.walk((cause) => cause instanceof ResponseBodyTooLargeError)) return true;
  const messages: string[] = [];
  if (error instanceof BaseError) {
    error.walk((cause) => {
      if (cause instanceof Error) messages.push(cause.message, (cause as BaseError).details ?? '');
      return false;
    });
  } else if (error instanceof Error) messages.push(error.message);
  return messages.some((message) => TOO_LARGE.some((pattern) => pattern.test(message)));
}

export const TOPICS = {
  BoostCreated: toEventSelector(boostCoreEvents[0]),
  IncentiveAdded: toEventSelector(boostCoreEvents[1]),
  BoostClaimed: toEventSelector(boostCoreEvents[2]),
  Claimed: toEventSelector(incentiveClaimedEvent[0]),
  ToppedUp: toEventSelector('event ToppedUp(address sender, uint256 amount)'),
} as const;

export interface RawLogQuery {
  address?: Hex;
  topic0: Hex[];
}

/** The logs of `query` from `from` to `to` (inclusive), in chain order; `onSplit` hears of each split. */
export async function getLogsSplitting(
  rpc: Rpc,
  query: RawLogQuery,
  from: bigint,
  to: bigint,
  onSplit?: (from: bigint, to: bigint) => void,
): Promise<Log[]> {
  const client: PublicClient = rpc.client;
  const fetchRange = async (start: bigint, end: bigint): Promise<Log[]> => {
    try {
      return await rpc.withRetries(
        `eth_getLogs ${start}-${end}`,
        () =>
          client.request({
            method: 'eth_getLogs',
            params: [
              {
                ...(query.address ? { address: query.address } : {}),
                topics: [query.topic0],
                fromBlock: `0x${start.toString(16)}`,
                toBlock: `0x${end.toString(16)}`,
              },
            ],
          }) as unknown as Promise<Log[]>,
        { isFinal: (error) => end > start && isRangeTooLarge(error) },
      );
    } catch (error) {
      if (!(end > start && isRangeTooLarge(error))) throw error;
      onSplit?.(start, end);
      const middle = start + (end - start) / 2n;
      return [...(await fetchRange(start, middle)), ...(await fetchRange(middle + 1n, end))];
    }
  };
  return fetchRange(from, to);
}
