import {
  type AbiEvent,
  type AbiFunction,
  type AbiParameter,
  type Address,
  decodeEventLog,
  decodeFunctionData,
  fromHex,
  type Hex,
  isAddress,
  isAddressEqual,
  parseEventLogs,
  toEventSelector,
  zeroAddress,
  zeroHash,
} from 'viem';
import type { ActionClaimantRead, ActionStepRead } from './components.js';

/**
 * Whether a transaction does what a Boost campaign's action asks, who its claimant is, and what a
 * variable-criteria incentive pays for it: the semantics of the official SDK (@boostxyz/sdk 5.5.0,
 * pinned in package.json) ported to a pure function of the transaction, its receipt and the ABI
 * items the registry knows, so that the service signs exactly when the SDK's checks pass.
 *
 *   checkActionSteps  EventAction.validateActionSteps (isActionStepValid / isActionEventValid /
 *                     isActionFunctionValid / validateFieldAgainstCriteria), steps in order
 *   deriveClaimant    EventAction.deriveActionClaimantFromTransaction
 *   criteriaAmount    ERC20(Pegged)VariableCriteriaIncentive.getIncentiveScalar
 *
 * Wherever the SDK throws, the answer here is "no" (not met, no claimant, no amount): its callers
 * see a rejected promise, which is no either. Where the SDK does something surprising, the code
 * does it too and says so in a comment marked "SDK quirk"; test/protocol/action-steps.test.ts
 * compares every answer with the SDK's on the protocol's own bytecode. Two guards are the
 * module's own, and make it answer no where the SDK would work without bound: the size limits
 * (`StepLimits`) and the REGEX guard (`regexRefusal`).
 *
 * Where this module checks more than the SDK 5.5.0, it follows the protocol's later SDK releases,
 * because a signing service must: a step's and a criteria's target contract is checked (the zero
 * address matching any), so that a log or call of a contract the sender deployed meets nothing;
 * each log is judged on its own; and event steps of one signature and target must be met by one
 * log. The test's reference applies the SDK 5.5.0 to each log of the target alone. The 5.5.0 also
 * ignores the transaction's status and the campaign's creation block: the caller checks those.
 */

/** The SDK's FilterType, as the action stores it. */
export const FilterType = {
  EQUAL: 0,
  NOT_EQUAL: 1,
  GREATER_THAN: 2,
  LESS_THAN: 3,
  CONTAINS: 4,
  REGEX: 5,
  GREATER_THAN_OR_EQUAL: 6,
  LESS_THAN_OR_EQUAL: 7,
} as const;

/**
 * The SDK's PrimitiveType. It has no INT: an `int` argument resolves to UINT and compares as a
 * signed bigint against filterData read as unsigned (SDK quirk), so a negative value is below
 * every filter and equal to none.
 */
export const PrimitiveType = { UINT: 0, ADDRESS: 1, BYTES: 2, STRING: 3, TUPLE: 4 } as const;

/**
 * The SDK's CheatCodes, all 255: as a step's fieldIndex with EQUAL on BYTES, "any arguments"; as
 * the claimant's fieldIndex, the transaction's sender; as an event criteria's fieldIndex, the gas
 * the transaction paid.
 */
const CHEAT_CODE = 255;

/** The SDK decodes Transfer logs its own way, ERC-721 or ERC-20 (decodeTransferLogs). */
const TRANSFER_TOPIC: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const transferEvent = (valueIndexed: boolean): AbiEvent => ({
  type: 'event',
  name: 'Transfer',
  inputs: [
    { type: 'address', indexed: true },
    { type: 'address', indexed: true },
    { type: 'uint256', indexed: valueIndexed },
  ],
});
const TRANSFER_ERC721 = transferEvent(true);
const TRANSFER_ERC20 = transferEvent(false);

/** An action step as the service stores it (action_steps; ActionStepRead of components.ts). */
export type ActionStep = Pick<ActionStepRead, 'chainId' | 'targetContract' | 'signature' | 'signatureType' | 'parameters'>;
/** How an action names its claimant (ActionClaimantRead of components.ts). */
export type ActionClaimant = Pick<ActionClaimantRead, 'chainId' | 'targetContract' | 'signature' | 'signatureType' | 'fieldIndex'>;

/**
 * A variable-criteria incentive's criteria as readCriteria (components.ts) gives it. criteriaType
 * is read with the SDK's numbering, 0 = event and 1 = function (EventAction's SignatureType), the
 * reverse of the contract's own enum (FUNC, EVENT): the SDK writes the criteria with its numbering
 * and reads them back with it, and the contract never looks at the field, so a campaign made
 * through the SDK means what the SDK reads. valueType (V2 only, 0 RAW / 1 WAD) changes nothing
 * here: neither the SDK nor the contract scales the amount by it (for both, the contract pays the
 * amount, or reward * amount / 1e18 when the reward is set).
 */
export interface IncentiveCriteria {
  criteriaType: number;
  signature: string;
  fieldIndex: number;
  targetContract: string;
  valueType?: number;
}

/** The registry's ABI item for a signature (known_signatures.abi_item, keyed as the steps name it). */
export type AbiLookup = (signature: Hex) => AbiEvent | AbiFunction | undefined;

/** What viem's getTransaction gives, narrowed to what the checks read. */
export interface ChainTransaction {
  hash: Hex;
  from: Address;
  to: Address | null;
  input: Hex;
  blockNumber: bigint;
  chainId: number;
}

export interface ChainLog {
  address: Address;
  topics: readonly Hex[];
  data: Hex;
  logIndex: number | null;
}

/** What viem's getTransactionReceipt gives, narrowed; the gas fields serve gas-rebate criteria only. */
export interface ChainReceipt {
  status: 'success' | 'reverted';
  logs: readonly ChainLog[];
  gasUsed?: bigint;
  effectiveGasPrice?: bigint;
  blobGasUsed?: bigint;
  blobGasPrice?: bigint;
}

/** A mined transaction with its receipt: one object, as a caller that reads both has them. */
export type MinedTransaction = ChainTransaction & ChainReceipt;

/**
 * The most work one check does: a transaction with more logs, or more calldata, than this is not
 * decoded, and the answer is no. The SDK has no such bound; a transaction is the sender's to shape.
 */
export interface StepLimits {
  maxLogs: number;
  maxCalldataBytes: number;
}

export const DEFAULT_STEP_LIMITS: StepLimits = { maxLogs: 500, maxCalldataBytes: 64 * 1024 };

/**
 * `step` is the index of the first step that does not hold, in the order given (the SDK stops
 * there too). `kind`: `action` when the event or call is not in the transaction (or cannot be
 * read), `filter` when it is but the step's field condition fails, `limit` when the transaction is
 * beyond StepLimits. `reason` is plain words for a refusal message.
 */
export type StepVerdict = { met: true } | { met: false; step: number; kind: 'action' | 'filter' | 'limit'; reason: string };

type Failure = { kind: 'action' | 'filter' | 'limit'; reason: string };

/**
 * Whether every step holds for the transaction. No step at all holds vacuously, as in the SDK (an
 * action on chain always has at least one).
 */
export function checkActionSteps(
  steps: readonly ActionStep[],
  tx: MinedTransaction,
  abiFor: AbiLookup,
  limits: StepLimits = DEFAULT_STEP_LIMITS,
): StepVerdict {
  // Event steps of one signature and target are met by one log: the logs that meet all of them so far.
  const together = new Map<string, Set<number>>();
  for (const [index, step] of steps.entries()) {
    const outcome = stepOutcome(step, tx, abiFor, limits);
    if ('kind' in outcome) return { met: false, step: index, ...outcome };
    if (outcome.logs === undefined) continue;
    const group = `${step.signature}:${step.targetContract}`;
    const earlier = together.get(group);
    const logs = earlier === undefined ? outcome.logs : new Set([...earlier].filter((log) => outcome.logs!.has(log)));
    if (logs.size === 0) {
      return { met: false, step: index, kind: 'filter', reason: `no single log of the transaction meets step ${index} and the earlier steps on the same event and contract` };
    }
    together.set(group, logs);
  }
  return { met: true };
}

/** A step that holds: for an event step, the logs (by position in the receipt) that meet it. */
type StepMet = { logs?: Set<number> };

function stepOutcome(step: ActionStep, tx: MinedTransaction, abiFor: AbiLookup, limits: StepLimits): Failure | StepMet {
  // The SDK fetches the transaction from the step's chain: on another chain it is not there.
  if (step.chainId !== tx.chainId) return { kind: 'action', reason: `the step watches chain ${step.chainId}, the transaction is on chain ${tx.chainId}` };
  const abi = abiFor(step.signature as Hex);
  if (!abi) return { kind: 'action', reason: `no ABI is known for the step's signature ${step.signature}` };
  if (step.signatureType === 'event') return eventStepOutcome(step, abi, tx, limits);
  return functionStepFailure(step, abi, tx, limits) ?? {};
}

/** The zero address as a step's target means any contract. */
const fromTarget = (target: string, address: Address | null) =>
  address !== null && (isAddressEqual(target as Address, zeroAddress) || isAddressEqual(target as Address, address));

/**
 * isActionStepValid for an event step, then isActionEventValid, one log at a time: the logs of
 * the step's signature from its target (any contract for the zero address) that meet it, each
 * read on its own. The SDK 5.5.0 reads all of a receipt's logs of the signature together, from
 * any contract; the protocol's later SDK checks the target, and so does this module (else anyone
 * could meet a step on token X with a log of a contract of their own).
 */
function eventStepOutcome(step: ActionStep, abi: AbiEvent | AbiFunction, tx: MinedTransaction, limits: StepLimits): Failure | StepMet {
  const { fieldIndex, fieldType } = step.parameters;
  // The SDK refuses a string or bytes filter on an indexed field (the log holds only its hash),
  // judged by the step's declared type and the registry's ABI, before any log is read.
  if ((fieldType === PrimitiveType.STRING || fieldType === PrimitiveType.BYTES) && (abi.inputs[fieldIndex] as { indexed?: boolean } | undefined)?.indexed) {
    return { kind: 'action', reason: `field ${fieldIndex} of ${abi.name} is indexed: a string or bytes value cannot be compared there` };
  }
  if (tx.logs.length > limits.maxLogs) return { kind: 'limit', reason: `the transaction has ${tx.logs.length} logs; at most ${limits.maxLogs} are checked` };
  const candidates = [...tx.logs.entries()].filter(([, log]) => log.topics[0] === step.signature && fromTarget(step.targetContract, log.address));
  if (candidates.length === 0) {
    const where = isAddressEqual(step.targetContract as Address, zeroAddress) ? '' : ` from ${step.targetContract}`;
    return { kind: 'action', reason: `the transaction has no ${abi.name} event${where}` };
  }
  const note = { text: '' };
  const met = new Set<number>();
  for (const [position, log] of candidates) {
    const decoded = decodeStepLogs(step.signature as Hex, abi, [log]);
    const args = decoded?.args[0];
    // SDK quirk: args come as an object, not an array, for an event with named inputs and none
    // indexed (viem's decodeEventLog), and the SDK passes over such a log: it never matches.
    if (decoded === undefined || !Array.isArray(args)) continue;
    try {
      const field = parseField(args, fieldIndex, decoded.abi.inputs, fieldType);
      if (fieldHolds({ ...step.parameters, fieldType: field.type }, field.value, note)) met.add(position);
    } catch {
      // As in the SDK: a field that cannot be read or compared does not meet the step.
    }
  }
  if (met.size === 0) return { kind: 'filter', reason: `no ${abi.name} event in the transaction has ${condition(step.parameters)}${note.text}` };
  return { logs: met };
}

/** Logs as a step reads them: each one's args and the address it came from, and the ABI that read them. */
interface DecodedLogs {
  abi: AbiEvent;
  args: unknown[];
  addresses: Address[];
}

/**
 * Logs decoded as the SDK decodes them; undefined where the SDK throws. A step passes its logs one
 * at a time; the claimant passes the receipt's, so that, as in the SDK, one log with its topic that
 * does not decode leaves it without a claimant.
 */
function decodeStepLogs(signature: Hex, abi: AbiEvent | AbiFunction, logs: readonly ChainLog[]): DecodedLogs | undefined {
  if (signature === TRANSFER_TOPIC) return decodeTransferLogs(logs);
  // The SDK filters by the selector of the ABI item it found, not by the step's signature. A
  // function's item has no event selector a log carries.
  if (abi.type !== 'event') return { abi: { type: 'event', name: abi.name, inputs: [] }, args: [], addresses: [] };
  const selector = toEventSelector(abi);
  const matching = logs.filter((log) => log.topics[0] === selector);
  try {
    return { abi, args: matching.map((log) => orderedArgs(abi, log)), addresses: matching.map((log) => log.address) };
  } catch {
    return undefined;
  }
}

/**
 * SDK decodeTransferLogs: the Transfer logs given (one, for a step; the receipt's, for the claimant)
 * as ERC-721 (three indexed fields); if one fails, every one as ERC-20; if one fails again, the SDK
 * throws. The registry's own ABI for Transfer is not used.
 */
function decodeTransferLogs(logs: readonly ChainLog[]): DecodedLogs | undefined {
  const transfers = logs.filter((log) => log.topics[0] === TRANSFER_TOPIC);
  for (const abi of [TRANSFER_ERC721, TRANSFER_ERC20]) {
    try {
      return { abi, args: transfers.map((log) => decodeLog(abi, log).args), addresses: transfers.map((log) => log.address) };
    } catch {
      // the other shape
    }
  }
  return undefined;
}

const decodeLog = (abi: AbiEvent, log: ChainLog) =>
  decodeEventLog({ abi: [abi], data: log.data, topics: log.topics as [Hex, ...Hex[]] }) as { args?: unknown };

/**
 * SDK decodeAndReorderLogArgs: the decoded args, reordered on the belief that viem puts the
 * indexed ones first. SDK quirk: that holds for named inputs (an object, indexed keys first) but
 * not for unnamed ones, which viem already returns in declaration order; the reordering then
 * swaps fields when a non-indexed input comes before an indexed one. Without indexed inputs the
 * args are left as viem gives them (an object for named inputs, undefined for none).
 */
function orderedArgs(abi: AbiEvent, log: ChainLog): unknown {
  const { args } = decodeLog(abi, log);
  if (!abi.inputs.some((input) => input.indexed)) return args;
  const values: unknown[] = Array.isArray(args) ? args : Object.values(args as object);
  const positions = [...abi.inputs.keys()];
  const order = [...positions.filter((i) => abi.inputs[i]!.indexed), ...positions.filter((i) => !abi.inputs[i]!.indexed)];
  const reordered: unknown[] = Array.from({ length: abi.inputs.length });
  for (const [i, position] of order.entries()) reordered[position] = values[i];
  return reordered;
}

/** isActionFunctionValid: the calldata decoded with the step's ABI item, one argument compared. */
function functionStepFailure(step: ActionStep, abi: AbiEvent | AbiFunction, tx: MinedTransaction, limits: StepLimits): Failure | undefined {
  // The target, as the protocol's later SDK checks it (5.5.0 does not): the call goes to it, any contract for the zero address.
  if (!fromTarget(step.targetContract, tx.to)) return { kind: 'action', reason: `the transaction does not call ${step.targetContract}` };
  const calldata = calldataBeyondLimit(tx, limits);
  if (calldata) return { kind: 'limit', reason: calldata };
  const args = decodeCall(abi, tx.input);
  // The SDK throws when the calldata does not decode with the item: the selector differs.
  if (args === null) return { kind: 'action', reason: `the transaction does not call ${abi.name}` };
  // SDK quirk: a function without arguments never meets a step, not even "any arguments".
  if (args === undefined) return { kind: 'action', reason: `${abi.name} takes no arguments to compare` };
  const note = { text: '' };
  try {
    const field = parseField(args, step.parameters.fieldIndex, abi.inputs, step.parameters.fieldType);
    if (fieldHolds({ ...step.parameters, fieldType: field.type }, field.value, note)) return undefined;
  } catch {
    // As in the SDK: an argument that cannot be read or compared does not meet the step.
  }
  return { kind: 'filter', reason: `the call to ${abi.name} does not have ${condition(step.parameters)}${note.text}` };
}

function calldataBeyondLimit(tx: ChainTransaction, limits: StepLimits): string | undefined {
  const bytes = (tx.input.length - 2) / 2;
  return bytes > limits.maxCalldataBytes ? `the transaction's calldata is ${bytes} bytes; at most ${limits.maxCalldataBytes} are decoded` : undefined;
}

/** The decoded arguments; undefined for a function without inputs; null when the calldata does not decode. */
function decodeCall(abi: AbiEvent | AbiFunction, input: Hex): readonly unknown[] | undefined | null {
  try {
    return decodeFunctionData({ abi: [abi], data: input }).args;
  } catch {
    return null;
  }
}

type Resolved = (typeof PrimitiveType)[Exclude<keyof typeof PrimitiveType, 'TUPLE'>];

/**
 * SDK parseFieldFromAbi: the compared value and the type it is compared as. SDK quirk: that type
 * comes from the ABI, not from the step's fieldType, which only chooses between one field and a
 * TUPLE path (and feeds the indexed-field refusal above).
 */
function parseField(args: readonly unknown[], fieldIndex: number, inputs: readonly AbiParameter[], declared: number): { value: unknown; type: Resolved } {
  // "Any arguments": a stand-in value, so that EQUAL on BYTES passes (fieldHolds).
  if (fieldIndex === CHEAT_CODE) return { value: zeroHash, type: PrimitiveType.BYTES };
  if (declared === PrimitiveType.TUPLE) return parseTupleField(args, unpackFieldIndexes(fieldIndex), inputs);
  if (fieldIndex >= args.length) throw new Error(`no field ${fieldIndex}`);
  const input = inputs[fieldIndex];
  if (!input?.type) throw new Error(`no ABI input ${fieldIndex}`);
  const value = args[fieldIndex];
  const type = primitiveOf(input.type);
  if (type === PrimitiveType.ADDRESS && (typeof value !== 'string' || !isAddress(value))) throw new Error('not an address');
  return { value, type };
}

/** SDK parseNestedTupleValue: each packed index picks a component, down to a non-tuple leaf. */
function parseTupleField(args: readonly unknown[], indexes: number[], inputs: readonly AbiParameter[]): { value: unknown; type: Resolved } {
  const [index, ...rest] = indexes;
  if (index === undefined || index >= inputs.length) throw new Error('tuple index out of range');
  const input = inputs[index]!;
  const value = args[index];
  if (!(input.type === 'tuple' || input.type.startsWith('tuple['))) return { value, type: primitiveOf(input.type) };
  // SDK quirk: a tuple decoded with named components is an object, and the SDK gives up on it.
  if (!Array.isArray(value)) throw new Error('tuple value is not an array');
  const components = (input as { components: readonly AbiParameter[] }).components;
  if (rest[0] === undefined || rest[0] >= components.length) throw new Error('tuple index out of range');
  return parseTupleField(value, rest, components);
}

/** SDK unpackFieldIndexes: up to five 6-bit indexes, 63 ends the list. */
function unpackFieldIndexes(packed: number): number[] {
  const indexes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const index = (packed >> (i * 6)) & 63;
    if (index === 63) break;
    indexes.push(index);
  }
  return indexes;
}

/**
 * SDK abiTypeToPrimitiveType. SDK quirks: `int…` is UINT; `bytes32[]` is BYTES and `uint256[]`
 * UINT (the comparisons then see an array); `bool`, `address[]`, `string[]` and tuples are no type
 * at all, so a step on such a field never holds.
 */
function primitiveOf(abiType: string): Resolved {
  const type = abiType.toLowerCase();
  if (type.startsWith('uint') || type.startsWith('int')) return PrimitiveType.UINT;
  if (type === 'address') return PrimitiveType.ADDRESS;
  if (type.startsWith('bytes')) return PrimitiveType.BYTES;
  if (type === 'string') return PrimitiveType.STRING;
  throw new Error(`no primitive type for ${abiType}`);
}

/**
 * SDK validateFieldAgainstCriteria, with the resolved type. It throws where the SDK throws (its
 * callers treat that as false); `note` carries why a REGEX was not run, for the reason.
 */
function fieldHolds(criteria: ActionStep['parameters'] & { fieldType: Resolved }, value: unknown, note: { text: string }): boolean {
  const { filterType, fieldType, fieldIndex } = criteria;
  const filterData = criteria.filterData as Hex;
  if (filterType === FilterType.EQUAL && fieldType === PrimitiveType.BYTES && fieldIndex === CHEAT_CODE) return true;
  // BigInt() as the SDK calls it: a bigint or number, but also an array of one number
  // (SDK quirk: `uint256[]` fields), and it throws on '0x' filterData.
  const number = (x: unknown) => BigInt(x as bigint);
  const string = () => fromHex(filterData, 'string');
  const numeric = () => {
    if (fieldType !== PrimitiveType.UINT) throw new Error('an order filter needs a number');
    return [number(value), number(filterData)] as const;
  };
  switch (filterType) {
    case FilterType.EQUAL:
    case FilterType.NOT_EQUAL: {
      const equal =
        fieldType === PrimitiveType.ADDRESS
          ? isAddressEqual(filterData, value as Address)
          : fieldType === PrimitiveType.UINT
            ? number(value) === number(filterData)
            : fieldType === PrimitiveType.STRING
              ? value === string()
              : // SDK quirk: bytes compare as strings, case and length included.
                value === filterData;
      return filterType === FilterType.EQUAL ? equal : !equal;
    }
    case FilterType.GREATER_THAN: {
      const [a, b] = numeric();
      return a > b;
    }
    case FilterType.GREATER_THAN_OR_EQUAL: {
      const [a, b] = numeric();
      return a >= b;
    }
    case FilterType.LESS_THAN: {
      const [a, b] = numeric();
      return a < b;
    }
    case FilterType.LESS_THAN_OR_EQUAL: {
      const [a, b] = numeric();
      return a <= b;
    }
    case FilterType.CONTAINS: {
      if (fieldType !== PrimitiveType.BYTES && fieldType !== PrimitiveType.STRING) throw new Error('CONTAINS needs bytes or a string');
      // SDK quirk: bytes are searched as hex text, so a match may start mid-byte, and empty
      // filterData is in every value.
      const part = fieldType === PrimitiveType.STRING ? string() : filterData.slice(2);
      return (value as { includes(part: string): boolean }).includes(part);
    }
    case FilterType.REGEX: {
      if (typeof value !== 'string' || fieldType !== PrimitiveType.STRING) throw new Error('REGEX needs a string');
      const pattern = string();
      const refusal = regexRefusal(pattern, value.length);
      if (refusal) {
        note.text = ` (the REGEX was not run: ${refusal})`;
        return false;
      }
      // As the SDK: no flags, a match anywhere in the value.
      return new RegExp(pattern).test(value);
    }
    default:
      throw new Error(`unknown filter type ${filterType}`);
  }
}

const FILTER_WORDS: Record<number, string> = {
  [FilterType.EQUAL]: 'equal to',
  [FilterType.NOT_EQUAL]: 'not equal to',
  [FilterType.GREATER_THAN]: 'greater than',
  [FilterType.GREATER_THAN_OR_EQUAL]: 'at least',
  [FilterType.LESS_THAN]: 'less than',
  [FilterType.LESS_THAN_OR_EQUAL]: 'at most',
  [FilterType.CONTAINS]: 'containing',
  [FilterType.REGEX]: 'matching',
};

/** "field 2 greater than 100": the step's condition in words. */
function condition({ filterType, fieldType, fieldIndex, filterData }: ActionStep['parameters']): string {
  const field = fieldType === PrimitiveType.TUPLE ? `field ${unpackFieldIndexes(fieldIndex).join('.')}` : `field ${fieldIndex}`;
  let shown = filterData;
  try {
    if (fieldType === PrimitiveType.UINT) shown = BigInt(filterData).toString();
    else if (fieldType === PrimitiveType.STRING) shown = JSON.stringify(fromHex(filterData as Hex, 'string'));
  } catch {
    // shown as stored
  }
  return `${field} ${FILTER_WORDS[filterType] ?? `(filter type ${filterType})`} ${shown}`;
}

/**
 * The REGEX guard. The SDK runs `new RegExp(pattern).test(value)` with the campaign creator's
 * pattern against a value the transaction's sender chooses; JavaScript's backtracking engine can
 * take exponential time on a pattern like `(a+)+$`. So a pattern is run only when its backtracking
 * is bounded, and otherwise the step does not hold (where the SDK would try, and might hang):
 *   - pattern and value lengths are capped;
 *   - no backreference (`\1`, `\k<name>`), and no repeated group that itself holds a repetition
 *     or an alternation (star height above one, the source of exponential blow-up);
 *   - what remains backtracks at most about (n + 1)^(k + 1) times the alternatives' product for a
 *     value of n characters and k repetitions; that estimate must stay under a budget.
 * The check is conservative: it refuses some patterns that would have run quickly.
 */
const REGEX_MAX_PATTERN = 512;
const REGEX_MAX_VALUE = 1024;
const REGEX_BUDGET = 10_000_000;

export function regexRefusal(pattern: string, valueLength: number): string | undefined {
  if (pattern.length > REGEX_MAX_PATTERN) return `the pattern is longer than ${REGEX_MAX_PATTERN} characters`;
  if (valueLength > REGEX_MAX_VALUE) return `the value is longer than ${REGEX_MAX_VALUE} characters`;
  try {
    // Compiling is linear in the pattern; an invalid one makes the SDK throw, so no match either.
    new RegExp(pattern);
  } catch {
    return 'the pattern is not a valid regular expression';
  }
  const shape = regexShape(pattern);
  if (shape.backreference) return 'the pattern has a backreference';
  if (shape.nestedRepetition) return 'the pattern repeats a group that itself repeats or alternates';
  let cost = (valueLength + 1) * shape.alternatives;
  for (let i = 0; i < shape.repetitions && cost <= REGEX_BUDGET; i++) cost *= valueLength + 1;
  if (cost > REGEX_BUDGET) return `the pattern has too many repetitions for a value of ${valueLength} characters`;
  return undefined;
}

/** One pass over a pattern that compiles (without flags): what the guard needs to know of it. */
function regexShape(pattern: string): { backreference: boolean; nestedRepetition: boolean; repetitions: number; alternatives: number } {
  // One frame per open group: whether it holds a quantifier or an alternation, and its branches.
  const groups = [{ complex: false, branches: 1 }];
  let last: 'none' | 'atom' | 'complex group' = 'none';
  let backreference = false;
  let nestedRepetition = false;
  let repetitions = 0;
  let alternatives = 1;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    const top = groups[groups.length - 1]!;
    const bound = char === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i)) : null;
    if (char === '\\') {
      if (/[1-9k]/.test(pattern[i + 1] ?? '')) backreference = true;
      i++;
      last = 'atom';
    } else if (char === '[') {
      // A class is one atom; its first unescaped `]` closes it.
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      last = 'atom';
    } else if (char === '(') {
      groups.push({ complex: false, branches: 1 });
      // Skip the group's kind: (?: (?= (?! (?<= (?<! (?<name>
      if (pattern[i + 1] === '?') {
        i += 2;
        if (pattern[i] === '<' && pattern[i + 1] !== '=' && pattern[i + 1] !== '!') i = pattern.indexOf('>', i);
        else if (pattern[i] === '<') i++;
      }
      last = 'none';
    } else if (char === ')' && groups.length > 1) {
      const group = groups.pop()!;
      alternatives *= group.branches;
      if (group.complex) groups[groups.length - 1]!.complex = true;
      last = group.complex ? 'complex group' : 'atom';
    } else if (char === '|') {
      top.complex = true;
      top.branches++;
      last = 'none';
    } else if (char === '*' || char === '+' || char === '?' || bound) {
      const max = char === '?' ? 1 : bound ? (bound[2] === undefined ? Number(bound[1]) : bound[3] ? Number(bound[3]) : Infinity) : Infinity;
      if (bound) i += bound[0].length - 1;
      if (pattern[i + 1] === '?') i++; // lazy
      if (max > 1) {
        repetitions++;
        if (last === 'complex group') nestedRepetition = true;
      }
      top.complex = true;
      last = 'none';
    } else {
      last = 'atom';
    }
  }
  alternatives *= groups[0]!.branches;
  return { backreference, nestedRepetition, repetitions, alternatives };
}

/**
 * The claimant the action names, or undefined (SDK deriveActionClaimantFromTransaction). With
 * fieldIndex 255 it is the transaction's sender, whatever the rest says.
 */
export function deriveClaimant(
  claimant: ActionClaimant,
  tx: MinedTransaction,
  abiFor: AbiLookup,
  limits: StepLimits = DEFAULT_STEP_LIMITS,
): Address | undefined {
  if (claimant.chainId !== tx.chainId) return undefined;
  if (claimant.fieldIndex === CHEAT_CODE) return tx.from;
  const abi = abiFor(claimant.signature as Hex);
  if (!isAddress(claimant.targetContract, { strict: false })) return undefined;
  if (claimant.signatureType === 'event') {
    if (!abi || tx.logs.length > limits.maxLogs) return undefined;
    const decoded = decodeStepLogs(claimant.signature as Hex, abi, tx.logs);
    if (!decoded) return undefined;
    // Unlike the steps, the claimant's target is checked. SDK quirk: the zero address is no
    // wildcard here (no log comes from it), and the last matching log wins, not the first.
    let found: Address | undefined;
    decoded.args.forEach((args, i) => {
      if (isAddressEqual(decoded.addresses[i]!, claimant.targetContract as Address)) found = addressAt(args, claimant.fieldIndex) ?? found;
    });
    return found;
  }
  // A function claimant: the call must go to the target (a contract creation goes nowhere).
  if (tx.to === null || !isAddressEqual(tx.to, claimant.targetContract)) return undefined;
  if (!abi || calldataBeyondLimit(tx, limits)) return undefined;
  const args = decodeCall(abi, tx.input);
  return args ? addressAt(args, claimant.fieldIndex) : undefined;
}

/** SDK validateClaimantAgainstArgs: the field, if the args are an array and it is an address. */
function addressAt(args: unknown, fieldIndex: number): Address | undefined {
  if (!Array.isArray(args) || args.length <= fieldIndex) return undefined;
  const value: unknown = args[fieldIndex];
  return typeof value === 'string' && isAddress(value) ? value : undefined;
}

/**
 * What a variable-criteria incentive reads from the transaction as its amount, or undefined
 * (getIncentiveScalar). V1 criteria follow the SDK 5.5.0; V2 criteria (with valueType) follow the
 * SDK's ERC20VariableCriteriaIncentiveV2 (later releases; 5.5.0 has no V2), which reads the value
 * with getScalarValue: a bigint only, and fieldIndex may be a packed path into tuples.
 * Beyond the SDK 5.5.0, only the criteria's target's logs count (any contract's for the zero
 * address), and a function criteria needs the call to go to its target. SDK quirks: the first
 * decodable log of the signature counts, and V1 turns whatever it reads into a bigint the way
 * BigInt() does: an address as its number, a string of digits as that number, a negative int as
 * a negative amount. A named ABI item gives its event args as an object, where V1 finds nothing.
 */
export function criteriaAmount(
  criteria: IncentiveCriteria,
  tx: MinedTransaction,
  abiFor: AbiLookup,
  limits: StepLimits = DEFAULT_STEP_LIMITS,
): bigint | undefined {
  const scalar = criteria.valueType === undefined ? v1Scalar : v2Scalar;
  if (criteria.criteriaType === 0) {
    if (criteria.fieldIndex === CHEAT_CODE) {
      // A gas rebate: what the sender paid for gas, blob gas included.
      if (tx.gasUsed === undefined || tx.effectiveGasPrice === undefined) return undefined;
      return tx.gasUsed * tx.effectiveGasPrice + (tx.blobGasUsed ?? 0n) * (tx.blobGasPrice ?? 0n);
    }
    const abi = abiFor(criteria.signature as Hex);
    if (!abi || tx.logs.length === 0 || tx.logs.length > limits.maxLogs) return undefined;
    // Only the criteria's target's logs (any contract's for the zero address), unlike the SDK 5.5.0:
    // else a contract of the sender's own could log the amount it likes.
    const logs = tx.logs.filter((log) => fromTarget(criteria.targetContract, log.address));
    try {
      // parseEventLogs skips the logs that do not decode, unlike the steps' decoding.
      const [first] = parseEventLogs({ abi: [abi], logs: logs as never }) as { args?: unknown }[];
      return first ? scalar(first.args, criteria.fieldIndex) : undefined;
    } catch {
      return undefined;
    }
  }
  if (criteria.criteriaType === 1) {
    const abi = abiFor(criteria.signature as Hex);
    if (!abi || !fromTarget(criteria.targetContract, tx.to) || calldataBeyondLimit(tx, limits)) return undefined;
    const args = decodeCall(abi, tx.input);
    try {
      return args ? scalar(args, criteria.fieldIndex) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** V1: `BigInt(args[fieldIndex])`, throwing on undefined (and, for a call, null). */
function v1Scalar(args: unknown, fieldIndex: number): bigint | undefined {
  const value = (args as Record<number, unknown> | undefined)?.[fieldIndex];
  if (value === undefined || value === null) return undefined;
  return BigInt(value as bigint);
}

/** V2 (SDK getScalarValue): walk the unpacked indexes; the first bigint met is the amount. */
function v2Scalar(args: unknown, fieldIndex: number): bigint | undefined {
  const indexes = unpackFieldIndexes(fieldIndex);
  if (indexes.length === 0) return undefined;
  let value: unknown = args;
  for (const index of indexes) {
    if (typeof value === 'bigint') return value;
    if (!Array.isArray(value) || index >= value.length) return undefined;
    value = value[index];
  }
  return typeof value === 'bigint' ? value : undefined;
}
