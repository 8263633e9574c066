/**
 * Which model does what (RFD 126, Model Resolution Chain). Turn summaries use
 * `conversation.turn_summary.generate.model`, else
 * `conversation.title.generate.model`, else `assistant.model.id` with default
 * parameters; titles use `conversation.title.generate.model`, else the
 * assistant's model id with default parameters. For both, a resolved model
 * that leaves `reasoning` unset gets effort `low` with `exclude = true`.
 *
 * @module
 */

import { type ConfigTable, getPath } from "./config_tree.ts";
import { type ModelId, ModelIdError, resolveModelId } from "./model_id.ts";
import { isPlainObject } from "./schema.ts";

/** The roles a model can have. */
export type ModelRole = "assistant" | "title" | "turn_summary";

/** The model one role uses. */
export interface RoleModel {
  /** The role. */
  role: ModelRole;
  /** The resolved model id. */
  id: ModelId;
  /** The model parameters (reasoning, max_tokens, ...), defaults applied. */
  parameters: ConfigTable;
  /** `context_window` from the model config, when set. */
  contextWindow: number | undefined;
  /** The config key the model came from. */
  source: string;
  /** `true` when `reasoning` is jpt's background default rather than configured. */
  reasoningDefaulted: boolean;
}

/** The reasoning background tasks use unless configured otherwise. */
export const BACKGROUND_REASONING = { effort: "low", exclude: true } as const;

const ASSISTANT = ["assistant", "model"];
const TITLE = ["conversation", "title", "generate", "model"];
const TURN_SUMMARY = ["conversation", "turn_summary", "generate", "model"];

/**
 * Resolves the model of one role.
 *
 * @param config The effective config.
 * @param role The role.
 * @returns The role's model.
 * @throws {ModelIdError} When no model is configured or its id does not resolve.
 */
export function resolveRoleModel(
  config: ConfigTable,
  role: ModelRole,
): RoleModel {
  const chain = role === "assistant"
    ? [ASSISTANT]
    : role === "title"
    ? [TITLE]
    : [TURN_SUMMARY, TITLE];
  for (const path of chain) {
    const model = getPath(config, path);
    if (isPlainObject(model) && model.id !== undefined) {
      return build(config, role, model, path.join("."), role !== "assistant");
    }
  }
  const assistant = getPath(config, ASSISTANT);
  if (!isPlainObject(assistant) || assistant.id === undefined) {
    throw new ModelIdError(
      role === "assistant"
        ? "No model configured: set assistant.model.id (for example --model ollama/llama3.2:3b)"
        : `No model configured for ${
          role === "title" ? "titles" : "turn summaries"
        }: set assistant.model.id or ${chain[0]!.join(".")}.id`,
    );
  }
  // The fallback to the assistant keeps only its id: parameters start fresh.
  return build(
    config,
    role,
    { id: assistant.id, context_window: assistant.context_window },
    "assistant.model.id",
    true,
  );
}

function build(
  config: ConfigTable,
  role: ModelRole,
  model: ConfigTable,
  source: string,
  backgroundReasoning: boolean,
): RoleModel {
  const aliases = getPath(config, ["providers", "llm", "aliases"]);
  let id: ModelId;
  try {
    id = resolveModelId(model.id, isPlainObject(aliases) ? aliases : {});
  } catch (error) {
    if (error instanceof ModelIdError) {
      throw new ModelIdError(`${source}: ${error.message}`);
    }
    throw error;
  }
  const parameters: ConfigTable = isPlainObject(model.parameters)
    ? { ...model.parameters }
    : {};
  const reasoningDefaulted = backgroundReasoning &&
    parameters.reasoning === undefined;
  if (reasoningDefaulted) parameters.reasoning = { ...BACKGROUND_REASONING };
  const contextWindow = typeof model.context_window === "number"
    ? model.context_window
    : undefined;
  return { role, id, parameters, contextWindow, source, reasoningDefaulted };
}
