/**
 * SHA-256 of text, synchronously, as lowercase hex or bytes.
 *
 * Two implementations of the same function: FIPS 180-4 in plain TypeScript
 * (below; loads in a fraction of a millisecond, where an npm package costs
 * every start-up about 2 ms of package resolution) by default, and
 * `node:crypto` (native, several times faster per turn, but its
 * Node-compatibility start-up costs about 20 ms) once a flow that hashes
 * many turns asks for it with {@linkcode fastHashingFor}. A short command
 * never pays for `node:crypto`; a listing of 50,000 labelled turns hashes at
 * native speed. `tests/workspace/sha256_test.ts` checks the two against each
 * other on random text.
 *
 * @module
 */

/** From how many hashes on the way the native implementation pays for its load. */
const NATIVE_FROM = 200;

const encoder = new TextEncoder();

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = new Uint32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);
/** The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const INITIAL = [
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
];
const schedule = new Uint32Array(64);
const HEX = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);

/** SHA-256 of bytes (FIPS 180-4, section 6.2). */
function sha256(message: Uint8Array): Uint8Array {
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian).
  const padded = new Uint8Array(((message.length + 9 + 63) >>> 6) << 6);
  padded.set(message);
  padded[message.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(message.length / 0x20000000));
  view.setUint32(padded.length - 4, (message.length << 3) >>> 0);
  const h = INITIAL.slice();
  const w = schedule;
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 64; t++) {
      const a = w[t - 15]!, b = w[t - 2]!;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^
        (b >>> 10);
      w[t] = w[t - 16]! + s0 + w[t - 7]! + s1;
    }
    let [a, b, c, d, e, f, g, k] = h as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    for (let t = 0; t < 64; t++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^
        ((e >>> 25) | (e << 7));
      const t1 = (k + s1 + ((e & f) ^ (~e & g)) + K[t]! + w[t]!) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^
        ((a >>> 22) | (a << 10));
      const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0]! + a) | 0;
    h[1] = (h[1]! + b) | 0;
    h[2] = (h[2]! + c) | 0;
    h[3] = (h[3]! + d) | 0;
    h[4] = (h[4]! + e) | 0;
    h[5] = (h[5]! + f) | 0;
    h[6] = (h[6]! + g) | 0;
    h[7] = (h[7]! + k) | 0;
  }
  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  for (let i = 0; i < 8; i++) out.setUint32(i * 4, h[i]! >>> 0);
  return digest;
}

function bytesToHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += HEX[byte];
  return hex;
}
/** The native implementation, once loaded. */
let native:
  | { hex(text: string): string; bytes(text: string): Uint8Array }
  | undefined;

/**
 * Hashes text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   sha256Hex("abc"),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * ```
 *
 * @param text Any text (UTF-8 encoded).
 * @returns 64 lowercase hex digits.
 */
export function sha256Hex(text: string): string {
  return native === undefined
    ? bytesToHex(sha256(encoder.encode(text)))
    : native.hex(text);
}

/**
 * Hashes text.
 *
 * @param text Any text (UTF-8 encoded).
 * @returns The 32 bytes of the digest.
 */
export function sha256Bytes(text: string): Uint8Array {
  return native === undefined
    ? sha256(encoder.encode(text))
    : native.bytes(text);
}

/**
 * Switches to the native implementation when about `count` hashes are
 * coming (a conversation's turns), so that a long listing hashes fast.
 *
 * @param count How many hashes the caller is about to compute.
 */
export async function fastHashingFor(count: number): Promise<void> {
  if (native !== undefined || count < NATIVE_FROM) return;
  const { createHash } = await import("node:crypto");
  // One call in and one out per hash: each crossing costs more than
  // hashing a turn.
  native = {
    hex: (text) => createHash("sha256").update(text).digest("hex"),
    bytes: (text) => new Uint8Array(createHash("sha256").update(text).digest()),
  };
}
