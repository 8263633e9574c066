/**
 * Counts and sizes jpt reads (`batch_size`, `context_window`, `max_tokens`,
 * `top_k`) must be whole numbers of at least 1: a value that does not fit is
 * an error naming the key and the layer that set it, instead of a silent
 * default.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import type { ConfigTable } from "./config_tree.ts";
import {
  ANY_KEY,
  CONFIG_SCHEMA,
  isPlainObject,
  type SchemaNode,
} from "./schema.ts";

/** A config value does not fit its field. */
export class ConfigRangeError extends JptError {
  /** The dotted key. */
  readonly key: string;

  /**
   * Creates the error, naming the key, the value, and where it was set.
   *
   * @param key The dotted key.
   * @param expected What the field needs.
   * @param value The value found.
   * @param origin The layer that set it.
   */
  constructor(key: string, expected: string, value: unknown, origin: string) {
    super(
      `Invalid value for "${key}": expected ${expected}, got ${
        JSON.stringify(value)
      } (set by ${origin})`,
    );
    this.key = key;
  }
}

/**
 * Checks the values of every field jpt reads.
 *
 * @param values The effective config.
 * @param origins The layer that set each leaf.
 * @throws {ConfigRangeError} For the first value that does not fit.
 */
export function validateConfigValues(
  values: ConfigTable,
  origins: ReadonlyMap<string, string>,
): void {
  const visit = (value: unknown, path: string[], node: SchemaNode) => {
    if (typeof node !== "string") {
      if (!isPlainObject(value)) return;
      for (const [key, child] of Object.entries(value)) {
        const childNode = node[key] ?? node[ANY_KEY];
        if (childNode !== undefined) visit(child, [...path, key], childNode);
      }
      return;
    }
    const expected = problem(node, value);
    if (expected === undefined) return;
    const key = path.join(".");
    throw new ConfigRangeError(
      key,
      expected,
      value,
      origins.get(key) ?? "the config",
    );
  };
  visit(values, [], CONFIG_SCHEMA);
}

/**
 * What the field needs, when the value does not fit. Only counts and sizes
 * are checked: jp's other fields take richer forms (a string may be a merge
 * object) that jpt passes through.
 */
function problem(node: SchemaNode, value: unknown): string | undefined {
  if (node !== "integer" || value === null || typeof value === "object") {
    return undefined;
  }
  return Number.isSafeInteger(value) && (value as number) >= 1
    ? undefined
    : "a whole number of at least 1";
}
