/**
 * SHA-256 of text, synchronously, as lowercase hex or bytes.
 *
 * Two implementations of the same function. By default the blocks are
 * compressed in WebAssembly (`sha256.wat`, assembled into `sha256_wasm.ts`):
 * 573 bytes that compile in a fraction of a millisecond and hash a 10-turn
 * conversation's fingerprints in 2.4–2.8 ms on a cold start, where the same
 * compression in plain TypeScript took 7–9 ms (V8 interprets it until it is
 * hot) and an npm package would cost every start-up about 2 ms of package
 * resolution. `node:crypto` (native, several times faster again, but its
 * Node-compatibility start-up costs about 20 ms) takes over once a flow that
 * hashes many turns asks for it with {@linkcode fastHashingFor}: a short
 * command never pays for `node:crypto`, and a listing of 50,000 labelled
 * turns hashes at native speed. `tests/workspace/sha256_test.ts` checks the
 * two against each other on random text.
 *
 * @module
 */

import { SHA256_WASM } from "./sha256_wasm.ts";

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
const HEX = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);

/** Where `sha256.wat` keeps the constants, the state and the blocks. */
const K_AT = 0, STATE_AT = 256, BLOCKS_AT = 1024;
/** Bytes of message copied in per call: what fits in the module's 2 pages. */
const WINDOW = 64 * 1024;

/** What `sha256.wat` exports. */
interface Compression {
  memory: WebAssembly.Memory;
  compress(at: number, blocks: number): void;
}

/** The compression module, instantiated on the first hash. */
let engine: Compression | undefined;

function compression(): Compression {
  if (engine !== undefined) return engine;
  // `atob` costs a millisecond on its first call; `fromBase64` a tenth of one.
  const bytes = Uint8Array.fromBase64(SHA256_WASM);
  // 573 bytes compile synchronously in a fraction of a millisecond.
  const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes))
    .exports as unknown as Compression;
  const view = new DataView(exports.memory.buffer);
  for (let t = 0; t < 64; t++) view.setUint32(K_AT + t * 4, K[t]!, true);
  return engine = exports;
}

/** SHA-256 of bytes (FIPS 180-4, section 6.2), compressed in WebAssembly. */
function sha256(message: Uint8Array): Uint8Array {
  const { memory, compress } = compression();
  // The module never grows its memory, so its buffer stays the same.
  const heap = new Uint8Array(memory.buffer);
  const view = new DataView(memory.buffer);
  for (let i = 0; i < 8; i++) {
    view.setUint32(STATE_AT + i * 4, INITIAL[i]!, true);
  }
  const whole = message.length & ~63;
  for (let at = 0; at < whole; at += WINDOW) {
    const end = Math.min(at + WINDOW, whole);
    heap.set(message.subarray(at, end), BLOCKS_AT);
    compress(BLOCKS_AT, (end - at) >>> 6);
  }
  // The rest, a 1 bit, zeros, and the length in bits (64-bit big-endian):
  // one block, or two when the length does not fit after the rest.
  const rest = message.length - whole;
  const last = BLOCKS_AT + (rest + 9 > 64 ? 128 : 64);
  heap.fill(0, BLOCKS_AT, last);
  heap.set(message.subarray(whole), BLOCKS_AT);
  heap[BLOCKS_AT + rest] = 0x80;
  view.setUint32(last - 8, Math.floor(message.length / 0x20000000));
  view.setUint32(last - 4, (message.length << 3) >>> 0);
  compress(BLOCKS_AT, (last - BLOCKS_AT) >>> 6);
  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  for (let i = 0; i < 8; i++) {
    out.setUint32(i * 4, view.getUint32(STATE_AT + i * 4, true));
  }
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
