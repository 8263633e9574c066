/**
 * The first stage of a chat turn: find the conversation (the one named, the
 * most recent, or a new one), resolve the config, the assistant model, its
 * endpoint and key (the preflight: a turn that cannot start writes
 * nothing), and for a new conversation reserve its id under its lock.
 *
 * @module
 */

import type { ConfigTable } from "../../config/config_tree.ts";
import type { ChatClient } from "../../llm/chat_client.ts";
import { resolveRoleModel, type RoleModel } from "../../config/role_models.ts";
import { type ProviderEndpoint, resolveEndpoint } from "../../llm/endpoint.ts";
import type { LoadedConversation } from "../../workspace/conversation_io.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import type { ConversationLock } from "../../workspace/lock.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import type { Services } from "../services.ts";
import { defaultConversation, resolveTarget } from "../conversation_target.ts";
import type { Session } from "../session.ts";
import { importLazily } from "../../platform/lazy_import.ts";

/** What a turn needs before it writes anything. */
export interface Preflight {
  /** The effective config. */
  config: ConfigTable;
  /** The assistant model. */
  assistant: RoleModel;
  /** Where it is reached. */
  endpoint: ProviderEndpoint;
  /** A chat client for it. */
  client: ChatClient;
}

/** A new conversation, ready for its first request. */
export interface NewTurnTarget {
  /** The conversation (nothing on disk yet but its empty directories). */
  conversation: LoadedConversation;
  /** Its lock, when it is persisted; the caller releases it. */
  lock: ConversationLock | undefined;
  /** The preflight, done before anything was created. */
  preflight: Preflight;
}

/**
 * The conversation a turn continues: the one named, else the most recent;
 * `undefined` for a new one.
 *
 * @param session Where the flow runs (jp's session keywords and default).
 * @param workspace The workspace.
 * @param request `--new` and `--id`.
 * @returns The conversation, or `undefined`.
 */
export async function turnTarget(
  session: Session,
  workspace: Workspace,
  request: { newConversation: boolean; conversation?: string | undefined },
): Promise<ConversationRef | undefined> {
  if (request.newConversation) return undefined;
  return request.conversation !== undefined
    ? await resolveTarget(session, workspace, request.conversation)
    : await defaultConversation(session, workspace);
}

/**
 * Resolves config, model, endpoint and key for a turn.
 *
 * @param services The flow's services.
 * @param workspace The workspace.
 * @param conversation The conversation continued (its own config layer applies), if any.
 * @returns The preflight.
 * @throws {JptError} When the turn cannot start (unknown model, no key, untrusted endpoint).
 */
export async function preflight(
  services: Services,
  workspace: Workspace,
  conversation: LoadedConversation | undefined,
): Promise<Preflight> {
  const config = (await services.config(workspace, conversation)).values;
  const assistant = resolveRoleModel(config, "assistant");
  const env = services.session.env;
  const endpoint = resolveEndpoint(assistant.id, config, env);
  return {
    config,
    assistant,
    endpoint,
    client: await services.chatClient(endpoint),
  };
}

/**
 * Starts a new conversation: the preflight first (nothing is created for a
 * turn that cannot start), then, when persisted, its id reserved under its
 * lock and its directories created.
 *
 * @param services The flow's services.
 * @param workspace The workspace.
 * @param options Whether anything is written, and the clock's reading.
 * @returns The conversation, its lock and the preflight.
 */
export async function openNewConversation(
  services: Services,
  workspace: Workspace,
  options: { persist: boolean; now: Date },
): Promise<NewTurnTarget> {
  const checked = await preflight(services, workspace, undefined);
  // Only a new conversation needs these (a query continuing one does not
  // load them before its request).
  const { createConversation, emptyConversation, freeConversationId } =
    await importLazily("workspace/conversation_create.ts");
  if (!options.persist) {
    const id = await freeConversationId(workspace, options.now);
    return {
      conversation: emptyConversation({ id, copies: [] }, options.now),
      lock: undefined,
      preflight: checked,
    };
  }
  const created = await createConversation(workspace, options.now);
  const conversation = emptyConversation(created.ref, options.now);
  conversation.source = created.ref.copies[0]!;
  return { conversation, lock: created.lock, preflight: checked };
}
