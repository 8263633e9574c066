import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  nodeCryptoPartsHasher,
  sha256Bytes,
  sha256Hex,
  webCryptoHasher,
  webCryptoPartsHasher,
} from "../../src/platform/sha256.ts";

const native = (text: string) =>
  createHash("sha256").update(text).digest("hex");

/** Random text: ASCII, accented letters, CJK, emoji (surrogate pairs) and controls. */
function randomText(length: number, seed: number): string {
  const pool = ["a", "Z", "0", " ", "\n", "\u0000", "é", "ß", "中", "😀"];
  let state = seed;
  let text = "";
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    text += pool[state % pool.length];
  }
  return text;
}

Deno.test("sha256Hex gives FIPS 180-4's digests for its test messages", async () => {
  assert.equal(
    await sha256Hex(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    await sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("Web Crypto and node:crypto hashers agree on random text, whole or in parts, in order", async () => {
  const texts = Array.from(
    { length: 300 },
    (_, i) => randomText(i * 7, i + 1),
  );
  const web = await webCryptoHasher(texts);
  assert.deepEqual(web, texts.map(native));
  // The same texts cut into parts at random places: every hasher of parts
  // gives the digest of the whole text.
  const parts = texts.map((text, i) => {
    let cut = (i * 13) % (text.length + 1);
    // Never between the two halves of a surrogate pair (jpt cuts only
    // around an ASCII `"event_id"` member).
    if (/[\ud800-\udbff]/.test(text[cut - 1] ?? "")) cut++;
    return [text.slice(0, cut), "", text.slice(cut)];
  });
  assert.deepEqual(await webCryptoPartsHasher(parts), web);
  assert.deepEqual(await (await nodeCryptoPartsHasher())(parts), web);
  const bytes = await sha256Bytes(texts[5]!);
  assert.equal(
    [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(""),
    web[5],
  );
});
