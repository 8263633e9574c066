/**
 * The config a new conversation stores in its `base_config.json`, as jp
 * stores it: the effective config with the assistant's model id resolved,
 * without the keys released jp does not know (it would refuse the file).
 *
 * @module
 */

import { fromPlain } from "../conversation/json_value.ts";
import { writeJsonPretty } from "../conversation/json_write.ts";
import { type ConfigTable, getPath } from "./config_tree.ts";
import { withoutKeysJpRejects } from "./jp_known_keys.ts";

/**
 * The bytes of a new conversation's `base_config.json`; see the module doc.
 *
 * @param config The effective config.
 * @param id The assistant's resolved model id.
 * @returns The file's bytes (pretty JSON, a newline at the end).
 */
export function baseConfigBytes(
  config: ConfigTable,
  id: { provider: string; name: string },
): Uint8Array {
  const copy = withoutKeysJpRejects(config);
  const model = getPath(copy, ["assistant", "model"]) as ConfigTable;
  model.id = { provider: id.provider, name: id.name };
  return new TextEncoder().encode(writeJsonPretty(fromPlain(copy)) + "\n");
}
