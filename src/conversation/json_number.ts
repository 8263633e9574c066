/**
 * Number text as jp's serde_json writes it.
 *
 * jp parses `events.json` into `serde_json::Value` and writes it back, so a
 * number literal is normalized: integers that fit 64 bits keep their digits,
 * everything else is a double printed with the shortest round-trip digits in
 * fixed notation for exponents -5..15 (with `.0` when integral) and scientific
 * notation (`1e-6`, `1.5e+20`) outside that range.
 *
 * @module
 */

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);

/**
 * Formats a JSON number literal the way serde_json 1.0.149 (zmij) writes it
 * after reading it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeNumberText } from "./json_number.ts";
 * assert.equal(normalizeNumberText("1.50"), "1.5");
 * assert.equal(normalizeNumberText("1e2"), "100.0");
 * ```
 *
 * @param text A valid JSON number literal.
 * @returns The literal jp would write for it.
 */
export function normalizeNumberText(text: string): string {
  if (INTEGER.test(text) && text !== "-0") {
    const big = BigInt(text);
    if (big >= I64_MIN && big <= U64_MAX) return text;
  }
  const value = Number(text);
  if (!Number.isFinite(value)) {
    throw new RangeError(`Number ${text} is out of range for jp`);
  }
  return formatDouble(value);
}

/**
 * Formats a double the way serde_json's float writer does.
 *
 * @param value A finite number.
 * @returns Its text, always with a `.` or an exponent.
 */
export function formatDouble(value: number): string {
  const sign = value < 0 || Object.is(value, -0) ? "-" : "";
  const [mantissa = "0", exponentText = "0"] = Math.abs(value).toExponential()
    .split("e");
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  if (exponent < -5 || exponent > 15) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const expSign = exponent < 0 ? "-" : "+";
    return `${sign}${digits[0]}${fraction}e${expSign}${Math.abs(exponent)}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  if (digits.length <= exponent + 1) {
    return `${sign}${digits}${"0".repeat(exponent + 1 - digits.length)}.0`;
  }
  return `${sign}${digits.slice(0, exponent + 1)}.${
    digits.slice(exponent + 1)
  }`;
}
