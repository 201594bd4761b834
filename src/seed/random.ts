/**
 * A seeded pseudo-random source (sfc32): the same seed gives the same sequence on every machine,
 * which is what makes the generated data reproducible.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight; `weights[i]` is the relative weight of `items[i]`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T;
  /** `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[];
  hex(bytes: number): string;
  address(): string;
  uuid(): string;
  /** A decimal string of exactly `digits` digits (no leading zero). */
  digits(digits: number): string;
  /** Derives an independent stream, so adding draws in one part does not shift another part's data. */
  fork(label: string): Random;
}

export function createRandom(seed: number | string): Random {
  const [a0, b0, c0, d0] = seedState(String(seed));
  let a = a0;
  let b = b0;
  let c = c0;
  let d = d0;
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // Warm up so that similar seeds diverge.
  for (let i = 0; i < 15; i++) next();

  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  // Four bytes per draw: a million claims each want a 32-byte transaction hash.
  const hex = (bytes: number) => {
    let out = '';
    for (let i = 0; i < bytes; i += 4) {
      const word = (next() * 4294967296) >>> 0;
      out += HEX_BYTES[word & 255]!;
      if (i + 1 < bytes) out += HEX_BYTES[(word >>> 8) & 255]!;
      if (i + 2 < bytes) out += HEX_BYTES[(word >>> 16) & 255]!;
      if (i + 3 < bytes) out += HEX_BYTES[word >>> 24]!;
    }
    return out;
  };
  const random: Random = {
    next,
    int,
    chance: (probability) => next() < probability,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)] as (typeof items)[number];
    },
    weighted: (items, weights) => {
      const total = weights.reduce((sum, weight) => sum + weight, 0);
      let roll = next() * total;
      for (let i = 0; i < items.length; i++) {
        roll -= weights[i] ?? 0;
        if (roll < 0) return items[i] as (typeof items)[number];
      }
      return items[items.length - 1] as (typeof items)[number];
    },
    sample: (items, count) => {
      const copy = [...items];
      const n = Math.min(count, copy.length);
      for (let i = 0; i < n; i++) {
        const j = int(i, copy.length - 1);
        [copy[i], copy[j]] = [copy[j] as (typeof copy)[number], copy[i] as (typeof copy)[number]];
      }
      return copy.slice(0, n);
    },
    hex,
    address: () => `0x${hex(20)}`,
    uuid: () => {
      const h = hex(16);
      const variant = ((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
    digits: (count) => {
      let out = String(int(1, 9));
      for (let i = 1; i < count; i++) out += String(int(0, 9));
      return out;
    },
    fork: (label) => createRandom(`${seed}/${label}`),
  };
  return random;
}


/** cyrb128: spreads a string seed over four 32-bit words. */
function seedState(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
