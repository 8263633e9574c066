import assert from "node:assert/strict";
import {
  decodeBase64Leaves,
  decodeBase64Text,
  encodeBase64Text,
  isBase64OfUtf8,
  isUrlSafeBase64Text,
  undecodableLeaves,
} from "../../src/conversation/base64_field.ts";

Deno.test("decodeBase64Text() decodes strict, padded, standard base64 of UTF-8", () => {
  assert.equal(decodeBase64Text("Zm9v"), "foo");
  assert.equal(decodeBase64Text("Zm9vYg=="), "foob");
  assert.equal(decodeBase64Text("Zm9vYmE="), "fooba");
  assert.equal(decodeBase64Text(""), "");
  assert.equal(decodeBase64Text(encodeBase64Text("é 😀\n")), "é 😀\n");
  // A leading byte order mark is kept, not eaten.
  assert.equal(decodeBase64Text(encodeBase64Text("\ufeffx")), "\ufeffx");
});

Deno.test("decodeBase64Text() keeps what jp's decoder rejects", () => {
  const rejected = [
    "Zm9vYg", // unpadded
    "Zm9vYg=", // short padding
    "Zm9vYg===", // extra padding
    "Zm9v\n", // whitespace jp does not skip
    "Zm9v    ",
    "Zm 9v",
    "Zm9vYg==    ",
    " Zm9vYmE",
    "Zh==", // unused trailing bits not zero
    "Pz8_", // URL-safe alphabet
    "Zm9v!!!!",
    "/w==", // valid base64 of a byte that is not UTF-8
    "not base64!",
  ];
  for (const text of rejected) {
    assert.equal(decodeBase64Text(text), undefined, JSON.stringify(text));
  }
});

Deno.test("isUrlSafeBase64Text() tells the URL-safe results jp wrote before 2026-03-05", () => {
  assert.ok(isUrlSafeBase64Text("Pz8_")); // "???"
  assert.ok(isUrlSafeBase64Text("w7w-")); // "ü>"
  assert.ok(!isUrlSafeBase64Text("-_8="), "not UTF-8");
  assert.ok(!isUrlSafeBase64Text("Pz8/"), "decodes as standard base64");
  assert.ok(!isUrlSafeBase64Text("Pz8_\n"));
  assert.ok(!isUrlSafeBase64Text("Pz8"));
  assert.ok(!isUrlSafeBase64Text("plain text"));
});

Deno.test("decodeBase64Leaves() and undecodableLeaves() walk every string leaf", () => {
  const stored = {
    command: encodeBase64Text("ls -la"),
    list: [encodeBase64Text("a"), 3, true, null, "not base64!"],
    nested: { "10": encodeBase64Text("ten"), "2": "Zh==" },
  };
  const decoded = decodeBase64Leaves(stored) as Record<string, unknown>;
  assert.deepEqual(decoded, {
    command: "ls -la",
    list: ["a", 3, true, null, "not base64!"],
    nested: { "10": "ten", "2": "Zh==" },
  });
  assert.deepEqual(undecodableLeaves(stored), ["not base64!", "Zh=="]);
});

Deno.test("isBase64OfUtf8() answers as the decoder does, on every kind of string", () => {
  // A fixed pseudo-random sequence (the same strings on every run).
  let seed = 0x2545f491;
  const next = (below: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % below;
  };
  // Bytes that make up ASCII, two- to four-byte characters, overlong forms,
  // surrogates, code points past U+10FFFF and stray continuation bytes.
  const interesting = [
    0x00,
    0x41,
    0x7f,
    0x80,
    0xbf,
    0xc0,
    0xc2,
    0xc3,
    0xa9,
    0xdf,
    0xe0,
    0xa0,
    0xe2,
    0x82,
    0xac,
    0xed,
    0x9f,
    0xee,
    0xef,
    0xf0,
    0x90,
    0x9f,
    0x98,
    0xf4,
    0x8f,
    0xf5,
    0xff,
  ];
  const characters =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n!é";
  const cases: string[] = [];
  for (let n = 0; n < 20_000; n++) {
    const bytes = Uint8Array.from(
      { length: next(10) },
      () => n % 2 === 0 ? interesting[next(interesting.length)]! : next(256),
    );
    let text = bytes.toBase64();
    if (n % 5 === 0 && text.length > 0) {
      const at = next(text.length);
      text = text.slice(0, at) + characters[next(characters.length)] +
        text.slice(at + 1);
    }
    cases.push(text);
    cases.push(
      Array.from({ length: next(13) }, () => characters[next(64)]).join(""),
    );
  }
  // Every pair of characters in each place of a group, padded or not.
  for (const first of characters.slice(0, 64)) {
    for (const second of characters.slice(0, 64)) {
      const pair = first + second;
      cases.push(`${pair}==`, `A${pair}=`, `${pair}AA`, `A${pair}A`);
    }
  }
  let valid = 0;
  for (const text of cases) {
    const decodes = decodeBase64Text(text) !== undefined;
    assert.equal(isBase64OfUtf8(text), decodes, JSON.stringify(text));
    if (decodes) valid++;
  }
  // Both answers are well represented.
  assert.ok(valid > 5_000 && valid < cases.length - 5_000, String(valid));
});
