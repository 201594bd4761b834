/**
 * The public IDs of the claim windows' campaigns, by row, for ordering ties and filtering by chain
 * without keeping the IDs themselves as strings.
 *
 * A real ID (`<chain_id>:0x<40 lowercase hex>:<identifier of up to 78 digits>`) runs past a
 * hundred characters. As strings, the IDs of every campaign with claims would sit in V8's old
 * generation, which V8 lets grow to a multiple of what it holds before it collects, so they would
 * raise the peak RSS by more than their own size. Here each is a 70-byte key in one off-heap
 * buffer whose byte order is the IDs' binary order (the database's "C" collation):
 *
 * - bytes 0-10: the chain ID's digits and the ':' after them, then zeros. Up to where both hold
 *   ':' the bytes are the IDs' own characters, so "10:" sorts after "100" exactly as the strings do;
 * - bytes 11-30: the address (fixed length, and hex digits in the order of their values);
 * - bytes 31-69: the identifier, a digit d as the half-byte d + 1, then zeros, so a shorter
 *   identifier that is a prefix of a longer one sorts first, as a shorter string does.
 *
 * An ID of any other form (upper-case hex, test fixtures) is kept as its string and compared as one.
 */
const KEY_BYTES = 70;
const CHAIN_BYTES = 11;
const ADDRESS_AT = CHAIN_BYTES;
const IDENTIFIER_AT = ADDRESS_AT + 20;
const COLON = 0x3a;
const KEYED = /^([0-9]{1,10}):0x([0-9a-f]{40}):([0-9]{1,78})$/;

export class PublicIdKeys {
  private keys = new Uint8Array(1024 * KEY_BYTES);
  private count = 0;
  /** IDs not of the keyed form, by index. */
  private readonly others = new Map<number, string>();

  get size(): number {
    return this.count;
  }

  /** Makes room for `count` IDs in all (see ClaimVolumeState.reserveRows). */
  reserve(count: number): void {
    if (count * KEY_BYTES > this.keys.length) this.resize(count);
  }

  /** Appends `publicId`; its index is the number of IDs added before it. */
  add(publicId: string): number {
    const index = this.count++;
    // Grown by half, not doubled: the buffer is most of what this class costs.
    if ((index + 1) * KEY_BYTES > this.keys.length) this.resize(Math.ceil((this.keys.length * 3) / 2 / KEY_BYTES));
    const parts = KEYED.exec(publicId);
    if (parts === null) {
      this.others.set(index, publicId);
      return index;
    }
    const [, chain, address, identifier] = parts as unknown as [string, string, string, string];
    const at = index * KEY_BYTES;
    for (let position = 0; position < chain.length; position++) this.keys[at + position] = chain.charCodeAt(position);
    this.keys[at + chain.length] = COLON;
    for (let position = 0; position < 20; position++) {
      const high = hexValue(address.charCodeAt(2 * position));
      this.keys[at + ADDRESS_AT + position] = (high << 4) | hexValue(address.charCodeAt(2 * position + 1));
    }
    for (let position = 0; position < identifier.length; position++) {
      const nibble = identifier.charCodeAt(position) - 0x30 + 1;
      this.keys[at + IDENTIFIER_AT + (position >> 1)]! |= position % 2 === 0 ? nibble << 4 : nibble;
    }
    return index;
  }

  /** The ID at `index`, as a string. */
  get(index: number): string {
    const other = this.others.get(index);
    if (other !== undefined) return other;
    const at = index * KEY_BYTES;
    let chain = '';
    for (let position = at; this.keys[position] !== COLON; position++) chain += String.fromCharCode(this.keys[position]!);
    let address = '';
    for (let position = 0; position < 20; position++) address += this.keys[at + ADDRESS_AT + position]!.toString(16).padStart(2, '0');
    let identifier = '';
    for (let position = 0; position < 78; position++) {
      const byte = this.keys[at + IDENTIFIER_AT + (position >> 1)]!;
      const nibble = position % 2 === 0 ? byte >> 4 : byte & 0x0f;
      if (nibble === 0) break;
      identifier += String(nibble - 1);
    }
    return `${chain}:0x${address}:${identifier}`;
  }

  /** The IDs at `a` and `b` in binary order: negative when `a`'s sorts first, 0 for the same ID. */
  compare(a: number, b: number): number {
    if (this.others.size > 0 && (this.others.has(a) || this.others.has(b))) {
      const first = this.get(a);
      const second = this.get(b);
      return first < second ? -1 : first > second ? 1 : 0;
    }
    const { keys } = this;
    for (let x = a * KEY_BYTES, y = b * KEY_BYTES, end = x + KEY_BYTES; x < end; x++, y++) {
      if (keys[x] !== keys[y]) return keys[x]! - keys[y]!;
    }
    return 0;
  }

  private resize(count: number): void {
    const bigger = new Uint8Array(count * KEY_BYTES);
    bigger.set(this.keys);
    this.keys = bigger;
  }

  /** Whether the ID at `index` names a chain of `chainIds` (its chain part reads as one of them). */
  onChain(index: number, chainIds: ReadonlySet<number>): boolean {
    const other = this.others.get(index);
    if (other !== undefined) return chainIds.has(chainOf(other));
    const at = index * KEY_BYTES;
    // A leading zero (allowed by the ID's pattern) names no chain: no chain ID is written with one.
    if (this.keys[at] === 0x30 && this.keys[at + 1] !== COLON) return false;
    let chain = 0;
    for (let position = at; this.keys[position] !== COLON; position++) chain = chain * 10 + (this.keys[position]! - 0x30);
    return chainIds.has(chain);
  }
}

/** The value of a lower-case hex digit's character code (the pattern admits no other). */
function hexValue(code: number): number {
  return code <= 0x39 ? code - 0x30 : code - 0x61 + 10;
}

function chainOf(publicId: string): number {
  const digits = publicId.slice(0, publicId.indexOf(':'));
  return /^(0|[1-9][0-9]*)$/.test(digits) ? Number(digits) : -1;
}
