import { normalizeNumberText } from "./json_number.ts";
import { JsonNumber, type JsonValue } from "./json_value.ts";

/**
 * Serializes a value exactly as jp's writer (serde_json `to_vec_pretty` with
 * `preserve_order`) does: two-space indent, `": "` between key and value,
 * every member on its own line, `[]`/`{}` for empty containers, strings
 * escaped like `JSON.stringify` and numbers normalized like serde_json.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeJsonPretty } from "@jpt/cli/unstable";
 * assert.equal(writeJsonPretty(new Map([["a", []]])), '{\n  "a": []\n}');
 * ```
 *
 * @param value The value to write.
 * @param depth The nesting depth the value sits at (its first line is not
 *   indented; nested lines are indented by `2 * (depth + 1)` spaces).
 * @returns The JSON text, without a trailing newline.
 */
export function writeJsonPretty(value: JsonValue, depth = 0): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof JsonNumber) return normalizeNumberText(value.text);
  const inner = "  ".repeat(depth + 1);
  const outer = "  ".repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((item) => inner + writeJsonPretty(item, depth + 1));
    return `[\n${items.join(",\n")}\n${outer}]`;
  }
  if (value.size === 0) return "{}";
  const members: string[] = [];
  for (const [key, member] of value) {
    members.push(
      `${inner}${JSON.stringify(key)}: ${writeJsonPretty(member, depth + 1)}`,
    );
  }
  return `{\n${members.join(",\n")}\n${outer}}`;
}
