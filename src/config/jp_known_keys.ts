/**
 * The config keys released jp knows, read from jp's config types at
 * dcdpr/jp commit 4c1c39f (`crates/jp_config/src/`: `lib.rs` `AppConfig`,
 * `assistant.rs`, `conversation.rs`, `conversation/title*.rs`,
 * `providers/llm/*.rs`, `model/id.rs`). Its config structs deny unknown
 * fields, so a config **file** (`.jp/config.*`, `config.d/*`, `.jp.toml`,
 * the user's config, `JP_CFG_*`) with any other key makes jp refuse to
 * start; a conversation's stored config (`base_config.json`, `config_delta`)
 * has unknown keys stripped with a warning (`crates/jp_conversation/src/compat.rs`).
 *
 * Sections jpt never writes and does not interpret are opaque here: their
 * inner keys are jp's business. `ModelConfig` and `ParametersConfig` allow
 * unknown fields, so they are opaque too.
 *
 * @module
 */

import { isPlainObject } from "./schema.ts";

/** A node: `true` for a leaf or an opaque section, or its known children (`*`: any name). */
export type KnownKeys = true | { readonly [key: string]: KnownKeys };

/** The commit of dcdpr/jp the list was read from. */
export const JP_KEYS_COMMIT = "4c1c39f";

const PROVIDER = (...keys: string[]): KnownKeys =>
  Object.fromEntries(keys.map((key) => [key, true]));

/** Released jp's config keys (see the module doc). */
export const JP_KNOWN_KEYS: KnownKeys = {
  inherit: true,
  config_load_paths: true,
  extends: true,
  assistant: {
    name: true,
    system_prompt: true,
    system_prompt_sections: true,
    instructions: true,
    tool_choice: true,
    model: true,
    request: true,
  },
  conversation: {
    title: {
      generate: { auto: true, model: true },
      from_heading: true,
    },
    tools: true,
    compaction: true,
    attachments: true,
    labels: true,
    inquiry: true,
    start_local: true,
    default_id: true,
  },
  style: true,
  interrupt: true,
  editor: true,
  template: true,
  providers: {
    llm: {
      aliases: true,
      anthropic: PROVIDER(
        "api_key_env",
        "base_url",
        "chain_on_max_tokens",
        "beta_headers",
      ),
      cerebras: PROVIDER("api_key_env", "base_url"),
      deepseek: PROVIDER("api_key_env", "base_url"),
      google: PROVIDER("api_key_env", "base_url"),
      llamacpp: PROVIDER("base_url"),
      ollama: PROVIDER("base_url"),
      openai: PROVIDER("api_key_env", "base_url", "base_url_env"),
      openrouter: PROVIDER(
        "api_key_env",
        "app_name",
        "app_referrer",
        "base_url",
      ),
    },
    mcp: true,
  },
  plugins: true,
  user: true,
};

/**
 * The dotted keys of a config that released jp does not know.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keysJpRejects } from "./jp_known_keys.ts";
 * assert.deepEqual(
 *   keysJpRejects({
 *     assistant: { model: { id: "ollama/x" } },
 *     conversation: { turn_summary: { generate: { batch_size: 2 } } },
 *   }),
 *   ["conversation.turn_summary"],
 * );
 * ```
 *
 * @param config A config table.
 * @returns The unknown keys (the outermost unknown key of each branch).
 */
export function keysJpRejects(config: Record<string, unknown>): string[] {
  const found: string[] = [];
  const visit = (value: unknown, known: KnownKeys, path: string[]) => {
    if (known === true || !isPlainObject(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const node = known[key] ?? known["*"];
      if (node === undefined) found.push([...path, key].join("."));
      else visit(child, node, [...path, key]);
    }
  };
  visit(config, JP_KNOWN_KEYS, []);
  return found;
}

/**
 * A copy of a config without the keys released jp rejects: what jpt may
 * store in a conversation's `base_config.json`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withoutKeysJpRejects } from "./jp_known_keys.ts";
 * assert.deepEqual(
 *   withoutKeysJpRejects({
 *     conversation: { title: { from_heading: true }, turn_summary: {} },
 *     providers: { llm: { ollama: { base_url: "x", context_window: 4096 } } },
 *   }),
 *   {
 *     conversation: { title: { from_heading: true } },
 *     providers: { llm: { ollama: { base_url: "x" } } },
 *   },
 * );
 * ```
 *
 * @param config A config table.
 * @returns A deep copy without {@linkcode keysJpRejects}'s keys.
 */
export function withoutKeysJpRejects(
  config: Record<string, unknown>,
): Record<string, unknown> {
  const copy = structuredClone(config);
  for (const key of keysJpRejects(copy)) {
    const path = key.split(".");
    let table: unknown = copy;
    for (const segment of path.slice(0, -1)) {
      table = isPlainObject(table) ? table[segment] : undefined;
    }
    if (isPlainObject(table)) delete table[path.at(-1)!];
  }
  return copy;
}
