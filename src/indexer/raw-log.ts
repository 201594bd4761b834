import type { Hex } from 'viem';

/** A log as eth_getLogs gives it, numbers in hex. */
export interface RawLog {
  address: Hex;
  topics: [Hex, ...Hex[]];
  data: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  /** Every node gives it; a log built by hand may not. */
  transactionIndex?: Hex;
  blockTimestamp?: Hex;
}
