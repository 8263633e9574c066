/**
 * Model parameters from config (`assistant.model.parameters` and the role
 * models) turned into OpenAI-compatible request fields for each provider.
 *
 * @module
 */

import type { ConfigTable } from "../config/config_tree.ts";
import type { RoleModel } from "../config/role_models.ts";
import { isPlainObject } from "../config/schema.ts";

/** jp's reasoning setting, normalized. */
export type Reasoning =
  | { kind: "off" }
  | { kind: "auto" }
  | { kind: "effort"; effort: string; exclude: boolean }
  | { kind: "budget"; tokens: number; exclude: boolean };

const EFFORTS = new Set([
  "none",
  "auto",
  "max",
  "xhigh",
  "high",
  "medium",
  "low",
  "xlow",
]);

/**
 * Reads jp's reasoning setting in any of its forms: `"off"`, `"auto"`, an
 * effort name, a token budget, or `{effort, exclude}`.
 *
 * @param value The configured value.
 * @returns The normalized setting, or `undefined` when unset or unreadable.
 */
export function parseReasoning(value: unknown): Reasoning | undefined {
  if (value === "off" || value === "none") return { kind: "off" };
  if (value === "auto") return { kind: "auto" };
  if (typeof value === "string" && EFFORTS.has(value)) {
    return { kind: "effort", effort: value, exclude: false };
  }
  if (typeof value === "number" && Number.isInteger(value) && value >= 0) {
    return value === 0
      ? { kind: "off" }
      : { kind: "budget", tokens: value, exclude: false };
  }
  if (isPlainObject(value)) {
    const exclude = value.exclude === true;
    if (typeof value.effort === "string") {
      const inner = parseReasoning(value.effort);
      if (inner?.kind === "effort") return { ...inner, exclude };
      return inner;
    }
    if (typeof value.tokens === "number") {
      return { kind: "budget", tokens: value.tokens, exclude };
    }
  }
  return undefined;
}

/** Whether the model's reasoning text should be hidden from the response. */
export function excludesReasoning(model: RoleModel): boolean {
  const reasoning = parseReasoning(model.parameters.reasoning);
  return reasoning?.kind === "off" ||
    ((reasoning?.kind === "effort" || reasoning?.kind === "budget") &&
      reasoning.exclude);
}

/**
 * The request fields for a model's parameters: `max_tokens` (OpenAI's
 * `max_completion_tokens`), `temperature`, `top_p`, `top_k` (not sent to
 * OpenAI), `stop_words` as `stop`, pass-through extras (`other` and unknown
 * keys), and reasoning in the provider's form. jpt's background default
 * reasoning is only sent where a model that does not reason ignores it
 * (OpenRouter, and OpenAI's reasoning models); configured reasoning is sent
 * as configured.
 *
 * @param model The role model.
 * @returns Fields to spread into a chat completion request.
 */
export function requestParams(model: RoleModel): Record<string, unknown> {
  const parameters = model.parameters;
  const provider = model.id.provider;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parameters)) {
    if (
      [
        "reasoning",
        "max_tokens",
        "temperature",
        "top_p",
        "top_k",
        "stop_words",
        "other",
      ].includes(key)
    ) continue;
    out[key] = value;
  }
  if (isPlainObject(parameters.other)) {
    Object.assign(out, parameters.other as ConfigTable);
  }
  if (typeof parameters.max_tokens === "number") {
    out[provider === "openai" ? "max_completion_tokens" : "max_tokens"] =
      parameters.max_tokens;
  }
  if (typeof parameters.temperature === "number") {
    out.temperature = parameters.temperature;
  }
  if (typeof parameters.top_p === "number") out.top_p = parameters.top_p;
  if (typeof parameters.top_k === "number" && provider !== "openai") {
    out.top_k = parameters.top_k;
  }
  if (
    Array.isArray(parameters.stop_words) && parameters.stop_words.length > 0
  ) out.stop = parameters.stop_words;
  Object.assign(out, reasoningFields(model));
  return out;
}

function reasoningFields(model: RoleModel): Record<string, unknown> {
  const reasoning = parseReasoning(model.parameters.reasoning);
  if (reasoning === undefined || reasoning.kind === "auto") return {};
  const provider = model.id.provider;
  if (provider === "openrouter") {
    if (reasoning.kind === "off") return { reasoning: { enabled: false } };
    if (reasoning.kind === "budget") {
      return {
        reasoning: { max_tokens: reasoning.tokens, exclude: reasoning.exclude },
      };
    }
    return {
      reasoning: {
        effort: openAiEffort(reasoning.effort),
        exclude: reasoning.exclude,
      },
    };
  }
  const reasons = provider === "openai"
    ? /^(o\d|gpt-5)/.test(model.id.name)
    : !model.reasoningDefaulted;
  if (!reasons || reasoning.kind === "budget") return {};
  return {
    reasoning_effort: reasoning.kind === "off"
      ? "none"
      : openAiEffort(reasoning.effort),
  };
}

/** jp's effort names mapped onto the OpenAI-compatible `reasoning_effort` values. */
function openAiEffort(effort: string): string {
  switch (effort) {
    case "xlow":
      return "minimal";
    case "max":
      return "xhigh";
    case "auto":
      return "medium";
    default:
      return effort;
  }
}
