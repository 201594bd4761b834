/**
 * The claimants of the claim windows, each given a key (0, 1, 2, ... in the order first seen), kept
 * off the V8 heap: a week holds a claimant for most claims, and as strings in a Map they would sit
 * in V8's old generation, which grows to a multiple of what it holds before it collects (see
 * PublicIdKeys). Here an address is its 20 bytes in one buffer, found through an open-addressing
 * table of keys in another; the bytes' order is the lowercase addresses' binary order.
 *
 * Addresses are what the claims table holds (`^0x[0-9a-f]{40}$`, its CHECK constraint).
 */
const ADDRESS_BYTES = 20;

export class ClaimantKeys {
  private bytes = new Uint8Array(1024 * ADDRESS_BYTES);
  /** Open addressing, linear probing: key + 1 per slot, 0 for an empty one; at most half full. */
  private table = new Int32Array(2048);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The key of `address`, or undefined when it has none. */
  keyOf(address: string): number | undefined {
    if (!ADDRESS.test(address)) return undefined;
    const mask = this.table.length - 1;
    for (let slot = hashOf(address) & mask; ; slot = (slot + 1) & mask) {
      const held = this.table[slot]!;
      if (held === 0) return undefined;
      if (this.holds(held - 1, address)) return held - 1;
    }
  }

  /** The key of `address`, given it the first time it is seen. */
  keyFor(address: string): number {
    if (!ADDRESS.test(address)) throw new RangeError(`a claimant must be a lowercase address, not ${JSON.stringify(address)}`);
    const mask = this.table.length - 1;
    let slot = hashOf(address) & mask;
    for (; ; slot = (slot + 1) & mask) {
      const held = this.table[slot]!;
      if (held === 0) break;
      if (this.holds(held - 1, address)) return held - 1;
    }
    const key = this.count++;
    if (this.count * ADDRESS_BYTES > this.bytes.length) {
      const bigger = new Uint8Array(Math.ceil((this.bytes.length * 3) / 2 / ADDRESS_BYTES) * ADDRESS_BYTES);
      bigger.set(this.bytes);
      this.bytes = bigger;
    }
    const at = key * ADDRESS_BYTES;
    for (let position = 0; position < ADDRESS_BYTES; position++) this.bytes[at + position] = byteAt(address, position);
    this.table[slot] = key + 1;
    if (2 * this.count > this.table.length) this.rehash(this.table.length * 2);
    return key;
  }

  /** The address of `key`. */
  address(key: number): string {
    let text = '0x';
    for (let at = key * ADDRESS_BYTES, end = at + ADDRESS_BYTES; at < end; at++) text += HEX[this.bytes[at]!];
    return text;
  }

  /** The addresses of `a` and `b` in binary order: negative when `a`'s sorts first, 0 for the same. */
  compare(a: number, b: number): number {
    const { bytes } = this;
    for (let x = a * ADDRESS_BYTES, y = b * ADDRESS_BYTES, end = x + ADDRESS_BYTES; x < end; x++, y++) {
      if (bytes[x] !== bytes[y]) return bytes[x]! - bytes[y]!;
    }
    return 0;
  }

  /** The keys whose `kept` entry is not -1, renumbered in their order: `kept[old]` becomes the new key. */
  compact(kept: Int32Array): ClaimantKeys {
    const next = new ClaimantKeys();
    for (let key = 0; key < this.count; key++) {
      if (kept[key] === -1) continue;
      kept[key] = next.keyFor(this.address(key));
    }
    return next;
  }

  private holds(key: number, address: string): boolean {
    const at = key * ADDRESS_BYTES;
    for (let position = 0; position < ADDRESS_BYTES; position++) {
      if (this.bytes[at + position] !== byteAt(address, position)) return false;
    }
    return true;
  }

  private rehash(size: number): void {
    const table = new Int32Array(size);
    const mask = size - 1;
    for (let key = 0; key < this.count; key++) {
      let slot = hashOfBytes(this.bytes, key * ADDRESS_BYTES) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = key + 1;
    }
    this.table = table;
  }
}

const ADDRESS = /^0x[0-9a-f]{40}$/;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** The value of a lowercase hex digit's character code. */
const hexValue = (code: number) => (code <= 0x39 ? code - 0x30 : code - 0x61 + 10);
const byteAt = (address: string, position: number) => (hexValue(address.charCodeAt(2 + 2 * position)) << 4) | hexValue(address.charCodeAt(3 + 2 * position));

/** FNV-1a over the address's 20 bytes: vanity addresses share prefixes, so every byte counts. */
function hashOf(address: string): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < ADDRESS_BYTES; position++) hash = Math.imul(hash ^ byteAt(address, position), 0x01000193);
  return hash >>> 0;
}

function hashOfBytes(bytes: Uint8Array, at: number): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < ADDRESS_BYTES; position++) hash = Math.imul(hash ^ bytes[at + position]!, 0x01000193);
  return hash >>> 0;
}
