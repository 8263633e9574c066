import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  fastHashingFor,
  sha256Bytes,
  sha256Hex,
} from "../../src/workspace/sha256.ts";

const native = (text: string) =>
  createHash("sha256").update(text).digest("hex");

/** Random text: ASCII, accented letters, CJK, emoji (surrogate pairs) and controls. */
function randomText(length: number, seed: number): string {
  const pool = [
    "a",
    "Z",
    "0",
    " ",
    "\n",
    "\u0000",
    "é",
    "ß",
    "中",
    "文",
    "😀",
    "🚀",
  ];
  let state = seed;
  let text = "";
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    text += pool[state % pool.length];
  }
  return text;
}

// Runs before any test switches to node:crypto (module state is per process).
Deno.test("sha256Hex gives FIPS 180-4's digests for its test messages", () => {
  assert.equal(
    sha256Hex(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
  assert.equal(
    sha256Hex("a".repeat(1_000_000)),
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
  );
});

Deno.test("sha256Hex and sha256Bytes agree with node:crypto at every padding boundary and on random text", () => {
  for (let length = 0; length <= 200; length++) {
    const text = "x".repeat(length);
    assert.equal(sha256Hex(text), native(text), `length ${length}`);
  }
  for (let seed = 1; seed <= 300; seed++) {
    const text = randomText(seed * 7 % 500, seed);
    assert.equal(sha256Hex(text), native(text), `seed ${seed}`);
    assert.deepEqual(
      sha256Bytes(text),
      new Uint8Array(createHash("sha256").update(text).digest()),
    );
  }
});

Deno.test("sha256Hex agrees with node:crypto across the WebAssembly module's copy window", () => {
  // 64 KiB are copied in per call: lengths around its multiples.
  for (const length of [65_535, 65_536, 65_537, 131_072 + 55, 200_003]) {
    const text = randomText(length, length);
    assert.equal(sha256Hex(text), native(text), `length ${length}`);
  }
});

Deno.test("after fastHashingFor many hashes, the native implementation gives the same digests", async () => {
  const texts = Array.from({ length: 50 }, (_, i) => randomText(i * 13, i));
  const before = texts.map(sha256Hex);
  await fastHashingFor(10_000);
  assert.deepEqual(texts.map(sha256Hex), before);
  assert.deepEqual(texts.map(native), before);
});
