import { JsonNumber, type JsonObject, type JsonValue } from "./json_value.ts";

/** A JSON syntax error with the position where parsing stopped. */
export class JsonSyntaxError extends SyntaxError {
  /** Offset of the offending character in the parsed text (UTF-16 units). */
  readonly position: number;

  /**
   * @param message What was expected.
   * @param position Where, in UTF-16 units from the start of the text.
   */
  constructor(message: string, position: number) {
    super(message);
    this.name = "JsonSyntaxError";
    this.position = position;
  }
}

/** serde_json's recursion limit: jp cannot read JSON nested deeper. */
export const MAX_DEPTH = 128;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

/**
 * Parses JSON text into the order-preserving model: object members keep their
 * order (a repeated key keeps its first place and takes the last value) and
 * numbers keep their literal text.
 *
 * @example Keys keep their order
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJsonOrdered } from "@jpt/cli/unstable";
 * const value = parseJsonOrdered('{"10": 1, "2": 2}');
 * assert.deepEqual([...(value as Map<string, unknown>).keys()], ["10", "2"]);
 * ```
 *
 * @param text The JSON text.
 * @returns The parsed value.
 * @throws {JsonSyntaxError} When the text is not valid JSON.
 */
export function parseJsonOrdered(text: string): JsonValue {
  let pos = 0;

  const fail = (what: string): never => {
    const found = pos >= text.length
      ? "end of input"
      : JSON.stringify(text[pos]);
    throw new JsonSyntaxError(`Expected ${what}, found ${found}`, pos);
  };
  const skipWhitespace = () => {
    WHITESPACE.lastIndex = pos;
    WHITESPACE.test(text);
    pos = WHITESPACE.lastIndex;
  };

  const parseString = (): string => {
    const start = pos;
    pos++; // opening quote
    let end = pos;
    while (true) {
      const quote = text.indexOf('"', end);
      if (quote < 0) {
        pos = text.length;
        fail("closing quote of a string");
      }
      let backslashes = 0;
      for (let i = quote - 1; i > start && text.charCodeAt(i) === 0x5c; i--) {
        backslashes++;
      }
      end = quote + 1;
      if (backslashes % 2 === 0) break;
    }
    try {
      pos = end;
      return JSON.parse(text.slice(start, end)) as string;
    } catch {
      // JSON.parse rejects raw control characters too; say which it was.
      for (let i = start + 1; i < end - 1; i++) {
        if (text.charCodeAt(i) < 0x20) {
          pos = i;
          fail("no raw control character in a string");
        }
      }
      pos = start;
      return fail("a valid string escape");
    }
  };

  let depth = 0;
  const parseValue = (): JsonValue => {
    skipWhitespace();
    const c = text[pos];
    if ((c === "{" || c === "[") && ++depth > MAX_DEPTH) {
      throw new JsonSyntaxError(
        `JSON nested deeper than ${MAX_DEPTH} levels (jp's reader stops there)`,
        pos,
      );
    }
    try {
      return parseAt(c);
    } finally {
      if (c === "{" || c === "[") depth--;
    }
  };

  const parseAt = (c: string | undefined): JsonValue => {
    if (c === "{") {
      pos++;
      const object: JsonObject = new Map();
      skipWhitespace();
      if (text[pos] === "}") {
        pos++;
        return object;
      }
      while (true) {
        skipWhitespace();
        if (text[pos] !== '"') fail("a string key");
        const key = parseString();
        skipWhitespace();
        if (text[pos] !== ":") fail("':'");
        pos++;
        object.set(key, parseValue());
        skipWhitespace();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "}") {
          pos++;
          return object;
        }
        fail("',' or '}'");
      }
    }
    if (c === "[") {
      pos++;
      const array: JsonValue[] = [];
      skipWhitespace();
      if (text[pos] === "]") {
        pos++;
        return array;
      }
      while (true) {
        array.push(parseValue());
        skipWhitespace();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "]") {
          pos++;
          return array;
        }
        fail("',' or ']'");
      }
    }
    if (c === '"') return parseString();
    if (text.startsWith("true", pos)) {
      pos += 4;
      return true;
    }
    if (text.startsWith("false", pos)) {
      pos += 5;
      return false;
    }
    if (text.startsWith("null", pos)) {
      pos += 4;
      return null;
    }
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (match) {
      pos = NUMBER.lastIndex;
      return new JsonNumber(match[0]);
    }
    return fail("a JSON value");
  };

  const value = parseValue();
  skipWhitespace();
  if (pos < text.length) fail("end of input");
  return value;
}
