import { formatModelId } from "../config/model_id.ts";
import { type ModelRole, resolveRoleModel } from "../config/role_models.ts";
import { contextWindowOf } from "../llm/context_window.ts";
import { resolveEndpoint } from "../llm/endpoint.ts";
import { type CliContext, inspectedConfig } from "./context.ts";
import { ExitCode } from "./errors.ts";
import { formatJson, sanitizeLine } from "./output.ts";

/** One role in `jpt models --json`. */
export interface RoleReport {
  /** `provider/name`. */
  id: string;
  /** The provider. */
  provider: string;
  /** The model name at the provider. */
  name: string;
  /** The OpenAI-compatible base URL used. */
  base_url: string;
  /** The API-key variable, or `null` when the provider takes none. */
  api_key_env: string | null;
  /** Whether that variable is set (the key is never printed). */
  api_key_set: boolean;
  /** The reasoning setting sent, or `null` for the provider's default. */
  reasoning: unknown;
  /** Context window in tokens. */
  context_window: number;
  /** Where the window came from: `config`, `provider` or `default`. */
  context_window_source: string;
  /** The config key the model came from. */
  source: string;
}

const ROLES: ModelRole[] = ["assistant", "title", "turn_summary"];

/**
 * `jpt models`: which model each role (assistant, title, turn_summary) uses,
 * where it is reached, whether its key is set, its reasoning setting and
 * context window.
 *
 * @param context The command context.
 * @param options `json` output, and a conversation whose config applies.
 * @returns The exit code.
 */
export async function modelsCommand(
  context: CliContext,
  options: { json: boolean; conversation: string | undefined },
): Promise<number> {
  const { values } = await inspectedConfig(context, options.conversation);
  const report: Record<string, RoleReport> = {};
  for (const role of ROLES) {
    const model = resolveRoleModel(values, role);
    const endpoint = resolveEndpoint(model.id, values, context.env);
    const window = await contextWindowOf(model, endpoint);
    report[role] = {
      id: formatModelId(model.id),
      provider: model.id.provider,
      name: model.id.name,
      base_url: endpoint.baseUrl,
      api_key_env: endpoint.apiKeyEnv ?? null,
      api_key_set: endpoint.apiKeySet,
      reasoning: model.parameters.reasoning ?? null,
      context_window: window.tokens,
      context_window_source: window.source,
      source: model.source,
    };
  }
  context.io.out(options.json ? formatJson(report) : formatReport(report));
  return ExitCode.ok;
}

function formatReport(report: Record<string, RoleReport>): string {
  return Object.entries(report).map(([role, model]) => {
    const key = model.api_key_env === null
      ? "none needed"
      : `${model.api_key_env} (${model.api_key_set ? "set" : "not set"})`;
    const reasoning = model.reasoning === null
      ? "provider default"
      : JSON.stringify(model.reasoning);
    return [
      `${role}: ${model.id}`,
      `  from:       ${model.source}`,
      `  base url:   ${model.base_url}`,
      `  api key:    ${key}`,
      `  reasoning:  ${reasoning}`,
      `  context:    ${model.context_window} tokens (${model.context_window_source})`,
    ].map((line) => `${sanitizeLine(line)}\n`).join("");
  }).join("\n");
}
