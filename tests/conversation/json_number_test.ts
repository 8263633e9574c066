import assert from "node:assert/strict";
import {
  formatDouble,
  normalizeNumberText,
} from "../../src/conversation/json_number.ts";

Deno.test("normalizeNumberText() keeps integers that fit 64 bits digit for digit", () => {
  for (
    const text of [
      "0",
      "42",
      "-7",
      "9007199254740993",
      "18446744073709551615",
      "-9223372036854775808",
    ]
  ) {
    assert.equal(normalizeNumberText(text), text);
  }
});

Deno.test("normalizeNumberText() turns other literals into serde_json doubles", () => {
  const cases: Array<[string, string]> = [
    ["1.50", "1.5"],
    ["1.0", "1.0"],
    ["1e2", "100.0"],
    ["-0", "-0.0"],
    ["-0.0", "-0.0"],
    ["18446744073709551616", "1.8446744073709552e+19"],
    ["-9223372036854775809", "-9.223372036854776e+18"],
    ["0.00001", "0.00001"],
    ["0.000001", "1e-6"],
    ["1E16", "1e+16"],
    ["1e15", "1000000000000000.0"],
    ["123456789012345678901", "1.2345678901234568e+20"],
    ["0.5", "0.5"],
    ["-1.25e-3", "-0.00125"],
  ];
  for (const [input, expected] of cases) {
    assert.equal(normalizeNumberText(input), expected, input);
  }
});

Deno.test("normalizeNumberText() rejects a number jp cannot hold", () => {
  assert.throws(() => normalizeNumberText("1e400"), RangeError);
});

Deno.test("formatDouble() writes f32-widened config values as jp does", () => {
  assert.equal(formatDouble(Math.fround(0.7)), "0.699999988079071");
  assert.equal(formatDouble(Math.fround(0.1)), "0.10000000149011612");
});
