/**
 * Config keys only jpt knows. Released jp denies unknown keys in its config
 * files and strips them (with a warning) from a conversation's stored
 * config, so jpt never writes these into a file jp reads.
 *
 * @module
 */

import type { ConfigTable } from "./config_tree.ts";
import { isPlainObject } from "./schema.ts";

/** The key paths released jp does not know (RFD 126's `turn_summary`). */
export const JPT_ONLY_KEYS: readonly (readonly string[])[] = [
  ["conversation", "turn_summary"],
];

/**
 * A copy of a config without the keys only jpt knows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withoutJptOnlyKeys } from "./jpt_only_keys.ts";
 * assert.deepEqual(
 *   withoutJptOnlyKeys({
 *     conversation: { title: { generate: { auto: true } }, turn_summary: {} },
 *   }),
 *   { conversation: { title: { generate: { auto: true } } } },
 * );
 * ```
 *
 * @param config The config.
 * @returns A deep copy without {@linkcode JPT_ONLY_KEYS}.
 */
export function withoutJptOnlyKeys(config: ConfigTable): ConfigTable {
  const copy = structuredClone(config);
  for (const path of JPT_ONLY_KEYS) {
    let table: unknown = copy;
    for (const key of path.slice(0, -1)) {
      table = isPlainObject(table) ? table[key] : undefined;
    }
    if (isPlainObject(table)) delete table[path.at(-1)!];
  }
  return copy;
}
