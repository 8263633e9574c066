/**
 * Model ids (storage reference 7): `provider/name` split at the first `/`,
 * the table form `{provider, name}`, or an alias from
 * `providers.llm.aliases`, which may chain to other aliases.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import { isProviderId, PROVIDER_IDS } from "./provider_id.ts";
import { isPlainObject } from "./schema.ts";

/** A resolved model id. */
export interface ModelId {
  /** The provider, e.g. `ollama`. */
  provider: string;
  /** The model name at that provider, e.g. `llama3.2:3b`. */
  name: string;
}

/** A model id that cannot be resolved. */
export class ModelIdError extends JptError {
  /**
   * @param message What is wrong.
   */
  constructor(message: string) {
    super(message);
  }
}

const NAME = /^[A-Za-z0-9_.:/~-]+$/;

/**
 * Resolves a model id value from config.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveModelId } from "./model_id.ts";
 * assert.deepEqual(
 *   resolveModelId("haiku", { haiku: "anthropic/claude-haiku-4-5" }),
 *   { provider: "anthropic", name: "claude-haiku-4-5" },
 * );
 * ```
 *
 * @param value `provider/name`, an alias, or `{provider, name}`.
 * @param aliases `providers.llm.aliases`.
 * @returns The provider and name.
 * @throws {ModelIdError} For an unknown provider, an unknown alias, or an alias cycle.
 */
export function resolveModelId(
  value: unknown,
  aliases: Record<string, unknown> = {},
): ModelId {
  const chain: string[] = [];
  let current = value;
  while (true) {
    if (isPlainObject(current)) {
      const { provider, name } = current;
      if (typeof provider !== "string" || typeof name !== "string") {
        throw new ModelIdError(
          `A model id table needs string "provider" and "name"`,
        );
      }
      return checked(provider, name);
    }
    if (typeof current !== "string" || current.trim() === "") {
      throw new ModelIdError(
        `A model id must be "provider/name", an alias, or {provider, name}`,
      );
    }
    const parsed = parseModelId(current);
    if (parsed !== undefined) return parsed;
    if (chain.includes(current)) {
      throw new ModelIdError(
        `Model alias cycle: ${[...chain, current].join(" -> ")}`,
      );
    }
    chain.push(current);
    if (!Object.hasOwn(aliases, current)) {
      const slash = current.indexOf("/");
      const provider = slash < 0 ? undefined : current.slice(0, slash).trim();
      throw new ModelIdError(
        provider !== undefined && !isProviderId(provider)
          ? `Unknown provider "${provider}" in model id "${current}" (known: ${
            PROVIDER_IDS.join(", ")
          })`
          : chain.length > 1
          ? `Model alias "${current}" (from ${
            chain.slice(0, -1).map((a) => `"${a}"`).join(" -> ")
          }) is not defined`
          : `Unknown model "${current}": not "provider/name" and not an alias in providers.llm.aliases`,
      );
    }
    current = aliases[current];
  }
}

/**
 * Parses `provider/name` without aliases.
 *
 * @param text The id.
 * @returns The id, or `undefined` when the text is not of that form.
 */
export function parseModelId(text: string): ModelId | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const provider = text.slice(0, slash).trim();
  const name = text.slice(slash + 1).trim();
  if (!isProviderId(provider) || !NAME.test(name)) return undefined;
  return { provider, name };
}

/**
 * Formats an id as `provider/name`.
 *
 * @param id The id.
 * @returns The text form.
 */
export function formatModelId(id: ModelId): string {
  return `${id.provider}/${id.name}`;
}

function checked(provider: string, name: string): ModelId {
  if (!isProviderId(provider)) {
    throw new ModelIdError(
      `Unknown provider "${provider}" (known: ${PROVIDER_IDS.join(", ")})`,
    );
  }
  if (!NAME.test(name)) throw new ModelIdError(`Invalid model name "${name}"`);
  return { provider, name };
}
