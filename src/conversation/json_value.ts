/**
 * An order-preserving JSON value model.
 *
 * Plain JavaScript objects move integer-like keys ("0", "42") to the front and
 * treat `__proto__` specially, and numbers lose their digits beyond 2^53. jp
 * writes objects in the order it read them and keeps 64-bit integers exact, so
 * every entry jpt rewrites goes through this model instead.
 *
 * @module
 */

/** A JSON number kept as the literal text it was read from (or written as). */
export class JsonNumber {
  /** The number literal, e.g. `"1.50"` or `"18446744073709551615"`. */
  readonly text: string;

  /**
   * Wraps a JSON number literal.
   *
   * @param text A valid JSON number literal.
   */
  constructor(text: string) {
    this.text = text;
  }

  /**
   * Wraps a JavaScript number, written the way JavaScript writes it.
   *
   * @param value A finite number.
   * @returns The wrapped number.
   */
  static of(value: number): JsonNumber {
    if (!Number.isFinite(value)) {
      throw new RangeError(`Cannot store non-finite number ${value} in JSON`);
    }
    return new JsonNumber(String(value));
  }
}

/** An object whose members keep their order; a repeated key keeps its first place. */
export type JsonObject = Map<string, JsonValue>;

/** Any JSON value in the order-preserving model. */
export type JsonValue =
  | null
  | boolean
  | string
  | JsonNumber
  | JsonValue[]
  | JsonObject;

/**
 * Tells whether a value is a JSON object in the order-preserving model.
 *
 * @param value Any JSON value.
 * @returns `true` for objects.
 */
export function isJsonObject(
  value: JsonValue | undefined,
): value is JsonObject {
  return value instanceof Map;
}

/**
 * Converts a plain JavaScript value (as from `JSON.parse`) to the
 * order-preserving model.
 *
 * @param value A JSON-compatible value.
 * @returns The same value in the order-preserving model.
 */
export function fromPlain(value: unknown): JsonValue {
  if (
    value === null || typeof value === "boolean" || typeof value === "string"
  ) {
    return value;
  }
  if (typeof value === "number") return JsonNumber.of(value);
  if (value instanceof JsonNumber) return value;
  if (Array.isArray(value)) return value.map(fromPlain);
  if (value instanceof Map) return value as JsonObject;
  if (typeof value === "object") {
    return new Map(
      Object.entries(value as Record<string, unknown>).map((
        [key, member],
      ) => [key, fromPlain(member)]),
    );
  }
  throw new TypeError(`Cannot store a value of type ${typeof value} in JSON`);
}
