import assert from "node:assert/strict";
import {
  JsonSyntaxError,
  parseJsonOrdered,
} from "../../src/conversation/json_parse.ts";
import type { JsonNumber } from "../../src/conversation/json_value.ts";
import { writeJsonPretty } from "../../src/conversation/json_write.ts";

Deno.test("parseJsonOrdered() keeps integer-like keys and __proto__ in file order", () => {
  const value = parseJsonOrdered(
    '{"10": 1, "2": 2, "__proto__": 3, "a": 4}',
  ) as Map<string, unknown>;
  assert.deepEqual([...value.keys()], ["10", "2", "__proto__", "a"]);
});

Deno.test("parseJsonOrdered() keeps a repeated key in its first place with the last value", () => {
  const value = parseJsonOrdered('{"a": 1, "b": 2, "a": 3}') as Map<
    string,
    JsonNumber
  >;
  assert.deepEqual([...value.keys()], ["a", "b"]);
  assert.equal(value.get("a")!.text, "3");
});

Deno.test("parseJsonOrdered() keeps number literals as text", () => {
  const value = parseJsonOrdered(
    "[1.50, 18446744073709551616, -0]",
  ) as JsonNumber[];
  assert.deepEqual(value.map((n) => n.text), [
    "1.50",
    "18446744073709551616",
    "-0",
  ]);
});

Deno.test("parseJsonOrdered() reports where the text stops being JSON", () => {
  for (
    const [text, position] of [['{"a": }', 6], ["[1, 2", 5], ['"\u0001"', 1], [
      "[tru]",
      1,
    ], ["{} x", 3]] as const
  ) {
    assert.throws(
      () => parseJsonOrdered(text),
      (error) =>
        error instanceof JsonSyntaxError && error.position === position,
      text,
    );
  }
});

Deno.test("writeJsonPretty() matches serde_json's pretty printer", () => {
  const value = parseJsonOrdered(
    '{"a":[],"b":{},"c":[1,{"d":null,"e":true}],"f":"x\\u001Fy\\u2028\\/"}',
  );
  assert.equal(
    writeJsonPretty(value),
    '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    {\n      "d": null,\n      "e": true\n    }\n  ],\n  "f": "x\\u001fy\u2028/"\n}',
  );
});

Deno.test("writeJsonPretty() indents a value nested at a given depth", () => {
  const value = parseJsonOrdered('{"a": [1]}');
  assert.equal(writeJsonPretty(value, 1), '{\n    "a": [\n      1\n    ]\n  }');
});
