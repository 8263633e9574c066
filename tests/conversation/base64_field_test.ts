import assert from "node:assert/strict";
import {
  decodeBase64Leaves,
  decodeBase64Text,
  encodeBase64Text,
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
