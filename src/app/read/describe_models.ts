/**
 * Which model each role uses (`jpt models`): assistant, title and
 * turn_summary, where each is reached, whether its key is set (never the key
 * itself), its reasoning setting and context window.
 *
 * @module
 */

import { formatModelId } from "../../config/model_id.ts";
import { type ModelRole, resolveRoleModel } from "../../config/role_models.ts";
import { contextWindowOf } from "../../llm/context_window.ts";
import { resolveEndpoint } from "../../llm/endpoint.ts";
import { optionalWorkspace, type Session } from "../session.ts";
import { inspectedConfig } from "../conversation_target.ts";
import { mostRecentConversation } from "../../workspace/most_recent_conversation.ts";

/** One role (also the shape of `jpt models --json`). */
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
 * Describes the model of every role.
 *
 * @param session Where the flow runs.
 * @param options A conversation whose own config layer applies (default: the
 *   one `jpt query` would continue), or `newConversation` for a new one's.
 * @returns One report per role, and the conversation whose config applied.
 */
export async function describeModels(
  session: Session,
  options: { conversation: string | undefined; newConversation?: boolean },
): Promise<ModelsReport> {
  // By default, what the next `jpt query` would use: the conversation it
  // would continue, with that conversation's own config layer.
  const conversation = options.conversation ??
    (options.newConversation ? undefined : await nextConversation(session));
  const { values } = await inspectedConfig(session, conversation);
  const report: Record<string, RoleReport> = {};
  for (const role of ROLES) {
    const model = resolveRoleModel(values, role);
    const endpoint = resolveEndpoint(model.id, values, session.env);
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
  return { conversation: conversation ?? null, roles: report };
}

/** The models of every role, and the conversation whose config applied. */
export interface ModelsReport {
  /** `jp-c<id>` whose own config applied, or `null` for a new conversation's. */
  conversation: string | null;
  /** One report per role. */
  roles: Record<string, RoleReport>;
}

async function nextConversation(session: Session): Promise<string | undefined> {
  const workspace = await optionalWorkspace(session);
  if (workspace === undefined) return undefined;
  const ref = await mostRecentConversation(workspace);
  return ref === undefined ? undefined : `jp-c${ref.id}`;
}
