/**
 * Keccak-256 (the Ethereum hash, not NIST SHA3-256: the padding differs), for naming the event
 * topics and function selectors of the seed's known signatures. Lanes are BigInts: slow, and only
 * ever run on a few dozen short strings.
 */
const MASK = (1n << 64n) - 1n;
const ROUND_CONSTANTS: bigint[] = [];
const ROTATIONS: number[] = [];
const PI: number[] = [];

// The round constants, rotation offsets and lane permutation, computed as the specification defines them.
{
  let lfsr = 1;
  for (let round = 0; round < 24; round++) {
    let constant = 0n;
    for (let bit = 0; bit < 7; bit++) {
      if (lfsr & 1) constant |= 1n << BigInt((1 << bit) - 1);
      lfsr = lfsr & 0x80 ? ((lfsr << 1) ^ 0x71) & 0xff : (lfsr << 1) & 0xff;
    }
    ROUND_CONSTANTS.push(constant);
  }
  let [x, y] = [1, 0];
  ROTATIONS[0] = 0;
  for (let t = 0; t < 24; t++) {
    ROTATIONS[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64;
    [x, y] = [y, (2 * x + 3 * y) % 5];
  }
  for (let x0 = 0; x0 < 5; x0++) for (let y0 = 0; y0 < 5; y0++) PI[y0 + 5 * ((2 * x0 + 3 * y0) % 5)] = x0 + 5 * y0;
}

const rotate = (lane: bigint, by: number) => (by === 0 ? lane : ((lane << BigInt(by)) | (lane >> BigInt(64 - by))) & MASK);

function permute(state: bigint[]): void {
  for (let round = 0; round < 24; round++) {
    const parity = [0, 1, 2, 3, 4].map((x) => state[x]! ^ state[x + 5]! ^ state[x + 10]! ^ state[x + 15]! ^ state[x + 20]!);
    for (let x = 0; x < 5; x++) {
      const d = parity[(x + 4) % 5]! ^ rotate(parity[(x + 1) % 5]!, 1);
      for (let y = 0; y < 25; y += 5) state[x + y] = state[x + y]! ^ d;
    }
    const moved = new Array<bigint>(25);
    for (let index = 0; index < 25; index++) moved[index] = rotate(state[PI[index]!]!, ROTATIONS[PI[index]!]!);
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) state[x + y] = moved[x + y]! ^ (~moved[((x + 1) % 5) + y]! & MASK & moved[((x + 2) % 5) + y]!);
    }
    state[0] = state[0]! ^ ROUND_CONSTANTS[round]!;
  }
}

/** Keccak-256 of a UTF-8 string, as 0x and 64 hexadecimal digits. */
export function keccak256(text: string): string {
  const RATE = 136;
  const input = Buffer.from(text, 'utf8');
  const padded = Buffer.alloc(Math.floor(input.length / RATE + 1) * RATE);
  input.copy(padded);
  padded[input.length] = padded[input.length]! ^ 0x01;
  padded[padded.length - 1] = padded[padded.length - 1]! ^ 0x80;
  const state = new Array<bigint>(25).fill(0n);
  for (let offset = 0; offset < padded.length; offset += RATE) {
    for (let lane = 0; lane < RATE / 8; lane++) state[lane] = state[lane]! ^ padded.readBigUInt64LE(offset + lane * 8);
    permute(state);
  }
  const out = Buffer.alloc(32);
  for (let lane = 0; lane < 4; lane++) out.writeBigUInt64LE(state[lane]!, lane * 8);
  return `0x${out.toString('hex')}`;
}
