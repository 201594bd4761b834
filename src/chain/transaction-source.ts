import {
  type Address,
  createPublicClient,
  type Hex,
  http,
  type PublicClient,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';
import { signerValidatorAbi } from './claim-payload.js';
import { isRevert } from './rpc.js';

/**
 * GET /signatures' reads of the chains: a transaction with its receipt and the head, and whether
 * a validator trusts a signer. One viem client per chain of CHAIN_RPC_URLS, with JSON-RPC batching
 * and no retries: a caller waits for an answer, so a node that does not answer in time is a 503
 * (ChainUnavailableError), and the caller asks again.
 */

export interface ObservedLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  logIndex: number;
}

/** A mined transaction as the checks read it. */
export interface ObservedTransaction {
  chainId: number;
  hash: Hex;
  from: Address;
  to: Address | null;
  input: Hex;
  blockNumber: bigint;
  status: 'success' | 'reverted';
  logs: ObservedLog[];
  /** What the sender paid for gas: a gas-rebate criteria's amount. */
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  blobGasUsed?: bigint;
  blobGasPrice?: bigint;
  /** The chain's head when the transaction was read. */
  head: bigint;
}

export type TransactionLookup = { found: 'mined'; transaction: ObservedTransaction } | { found: 'pending' } | { found: 'none' };

export class ChainUnavailableError extends Error {
  constructor(
    readonly chainId: number,
    options?: { cause?: unknown },
  ) {
    super(`chain ${chainId} could not be read`, options);
    this.name = 'ChainUnavailableError';
  }
}

export interface TransactionSource {
  /** The chains it can read. */
  readonly chainIds: number[];
  lookup(chainId: number, hash: Hex): Promise<TransactionLookup>;
  trustsSigner(chainId: number, validator: Address, signer: Address): Promise<boolean>;
  /** When a block was mined: the instant a pegged incentive's prices are read at. */
  blockTime(chainId: number, blockNumber: bigint): Promise<Date>;
}

export function createTransactionSource(urls: ReadonlyMap<number, string>, timeoutMs: number): TransactionSource {
  const clients = new Map<number, PublicClient>(
    [...urls].map(([chainId, url]) => [chainId, createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0, batch: true }) })]),
  );
  const client = (chainId: number) => {
    const found = clients.get(chainId);
    if (found === undefined) throw new ChainUnavailableError(chainId, { cause: new Error('CHAIN_RPC_URLS has no endpoint for this chain') });
    return found;
  };
  const reading = async <T>(chainId: number, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof TransactionNotFoundError || error instanceof TransactionReceiptNotFoundError) throw error;
      throw new ChainUnavailableError(chainId, { cause: error });
    }
  };
  return {
    chainIds: [...clients.keys()],
    async lookup(chainId, hash) {
      const rpc = client(chainId);
      try {
        const [transaction, receipt, head] = await reading(chainId, () =>
          Promise.all([rpc.getTransaction({ hash }), rpc.getTransactionReceipt({ hash }), rpc.getBlockNumber({ cacheTime: 0 })]),
        );
        return {
          found: 'mined',
          transaction: {
            chainId,
            hash,
            from: transaction.from,
            to: transaction.to,
            input: transaction.input,
            blockNumber: receipt.blockNumber,
            status: receipt.status,
            logs: receipt.logs.map((log) => ({ address: log.address, topics: log.topics, data: log.data, logIndex: log.logIndex })),
            gasUsed: receipt.gasUsed,
            effectiveGasPrice: receipt.effectiveGasPrice,
            blobGasUsed: receipt.blobGasUsed,
            blobGasPrice: receipt.blobGasPrice,
            head,
          },
        };
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) {
          // Sent, not mined yet: the node knows the transaction but has no receipt.
          const known = await reading(chainId, () => rpc.getTransaction({ hash })).catch((cause: unknown) => {
            if (cause instanceof TransactionNotFoundError) return undefined;
            throw cause;
          });
          return known === undefined ? { found: 'none' } : { found: 'pending' };
        }
        if (error instanceof TransactionNotFoundError) return { found: 'none' };
        throw error;
      }
    },
    async blockTime(chainId, blockNumber) {
      const rpc = client(chainId);
      const block = await reading(chainId, () => rpc.getBlock({ blockNumber }));
      return new Date(Number(block.timestamp) * 1000);
    },
    async trustsSigner(chainId, validator, signer) {
      const rpc = client(chainId);
      try {
        return await rpc.readContract({ address: validator, abi: signerValidatorAbi, functionName: 'signers', args: [signer] });
      } catch (error) {
        // A validator without `signers` (not a SignerValidator) trusts no key of ours.
        if (isRevert(error)) return false;
        throw new ChainUnavailableError(chainId, { cause: error });
      }
    },
  };
}
