/**
 * The config keys jpt knows, with their types, so that text values
 * (`--cfg key=value`, `JP_CFG_*`) are converted to the field's type and
 * unknown keys can be reported. jp's other top-level sections are known but
 * opaque: kept and passed through, never interpreted.
 *
 * @module
 */

import { ExitCode, JptError } from "../errors/jpt_error.ts";

/** How a text value is converted for a field. */
export type FieldType =
  | "string"
  | "boolean"
  | "integer"
  | "number"
  | "string_list"
  | "model_id"
  | "reasoning"
  | "any";

/** A node of the schema: a field type, or an object of named children. */
export type SchemaNode = FieldType | { readonly [key: string]: SchemaNode };

/** Marks a map whose keys are free (aliases, provider names, pass-through parameters). */
export const ANY_KEY = "*";

const PARAMETERS: SchemaNode = {
  reasoning: "reasoning",
  max_tokens: "integer",
  temperature: "number",
  top_p: "number",
  top_k: "integer",
  stop_words: "string_list",
  other: "any",
  [ANY_KEY]: "any",
};

const MODEL: SchemaNode = {
  id: "model_id",
  parameters: PARAMETERS,
  context_window: "integer",
};

const PROVIDER: SchemaNode = {
  base_url: "string",
  base_url_env: "string",
  api_key_env: "string",
  context_window: "integer",
  [ANY_KEY]: "any",
};

/** The schema of the config keys jpt reads, plus jp's opaque sections. */
export const CONFIG_SCHEMA: SchemaNode = {
  inherit: "boolean",
  config_load_paths: "string_list",
  extends: "string_list",
  assistant: {
    name: "string",
    system_prompt: "string",
    system_prompt_sections: "any",
    instructions: "any",
    tool_choice: "any",
    model: MODEL,
    request: "any",
  },
  conversation: {
    title: {
      generate: { auto: "boolean", model: MODEL },
      from_heading: "boolean",
    },
    turn_summary: {
      generate: {
        auto: "boolean",
        batch_size: "integer",
        detach: "boolean",
        // jpt only: "skip" (RFD 126) or "fit" a turn too large for a request.
        oversized: "string",
        model: MODEL,
      },
    },
    tools: "any",
    attachments: "any",
    inquiry: "any",
    start_local: "boolean",
    default_id: "string",
  },
  providers: {
    llm: {
      aliases: { [ANY_KEY]: "model_id" },
      [ANY_KEY]: PROVIDER,
    },
    mcp: "any",
  },
  usage: {
    // jpt only: US dollars per million tokens, by `provider/name`.
    prices: { [ANY_KEY]: { input: "number", output: "number" } },
  },
  style: "any",
  editor: "any",
  plugins: "any",
  user: "any",
  template: "any",
};

/**
 * The schema node at a dotted path.
 *
 * @param path The path's segments.
 * @returns The node, or `undefined` for a key jpt does not know.
 */
export function schemaAt(path: readonly string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = CONFIG_SCHEMA;
  for (const segment of path) {
    if (node === undefined) return undefined;
    if (node === "any") return "any";
    if (typeof node === "string") return undefined;
    node = node[segment] ?? node[ANY_KEY];
  }
  return node;
}

/** A text value does not fit its field's type. */
export class ConfigValueError extends JptError {
  /**
   * @param path The dotted key.
   * @param expected What the field needs.
   * @param value The text given.
   */
  constructor(path: string, expected: string, value: string) {
    super(
      `Invalid value for "${path}": expected ${expected}, got ${
        JSON.stringify(value)
      }`,
      { exitCode: ExitCode.usage },
    );
  }
}

/**
 * Converts a text value to the type of the field at `path`. Unknown keys and
 * objects keep the text as a string.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { convertText } from "./schema.ts";
 * assert.equal(convertText(["conversation", "turn_summary", "generate", "batch_size"], "3"), 3);
 * ```
 *
 * @param path The field's path.
 * @param text The value as typed.
 * @returns The converted value.
 * @throws {ConfigValueError} When the text does not fit the field's type.
 */
export function convertText(path: readonly string[], text: string): unknown {
  const node = schemaAt(path);
  const key = path.join(".");
  switch (node) {
    case "boolean":
      if (text === "true") return true;
      if (text === "false") return false;
      throw new ConfigValueError(key, "a boolean (true or false)", text);
    case "integer":
      if (/^-?\d+$/.test(text)) return Number(text);
      throw new ConfigValueError(key, "an integer", text);
    case "number":
      if (text.trim() !== "" && Number.isFinite(Number(text))) {
        return Number(text);
      }
      throw new ConfigValueError(key, "a number", text);
    case "string_list":
      return text === "" ? [] : text.split(",").map((item) => item.trim());
    case "reasoning":
      return /^\d+$/.test(text) ? Number(text) : text;
    default:
      return text;
  }
}

/**
 * Lists the dotted paths of a config that jpt does not know.
 *
 * @param config A config tree.
 * @returns The unknown keys, in document order.
 */
export function unknownKeys(config: Record<string, unknown>): string[] {
  const found: string[] = [];
  const visit = (value: unknown, path: string[], node: SchemaNode) => {
    if (typeof node === "string" || !isPlainObject(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const childNode = node[key] ?? node[ANY_KEY];
      if (childNode === undefined) found.push([...path, key].join("."));
      else visit(child, [...path, key], childNode);
    }
  };
  visit(config, [], CONFIG_SCHEMA);
  return found;
}

/**
 * Tells whether a value is a plain object (a config table).
 *
 * @param value Anything.
 * @returns `true` for non-null, non-array objects.
 */
export function isPlainObject(
  value: unknown,
): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
