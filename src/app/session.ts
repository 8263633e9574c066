/**
 * The session a flow runs in, and what every flow first resolves from it:
 * the workspace, the conversation it works on, and the effective config.
 *
 * @module
 */

import {
  type EnvReader,
  Workspace,
  WorkspaceNotFoundError,
} from "../workspace/workspace.ts";
import {
  loadConfig,
  type LoadedConfig,
  readBaseConfig,
} from "../config/load_config.ts";
import {
  loadConversation,
  type LoadedConversation,
} from "../workspace/conversation_io.ts";
import { mostRecentConversation } from "../workspace/most_recent_conversation.ts";
import {
  type ConversationRef,
  listConversations,
  resolveConversation,
} from "../workspace/conversation_ref.ts";
import { JptError } from "../errors/jpt_error.ts";

/**
 * Where a flow runs: the environment, the working directory and the global
 * options that choose the workspace and the config. The CLI builds one from
 * its arguments; a library user builds one directly.
 */
export interface Session {
  /** Environment access. */
  env: EnvReader;
  /** The working directory. */
  cwd: string;
  /** `--workspace DIR`, when given. */
  workspaceDir: string | undefined;
  /** `--cfg` values, in order. */
  cfg: string[];
  /** `--model`. */
  model: string | undefined;
  /** Every environment variable (for `JP_CFG_*`). */
  envVariables: Record<string, string>;
  /** Warnings about the config (keys released jp rejects), once each. */
  warn?: (line: string) => void;
}

/**
 * The effective config for a command: jp's layers, the conversation's own
 * layer when one is given, and the command line's `--cfg` and `--model`.
 *
 * @param session Where the flow runs.
 * @param workspace The workspace, if any.
 * @param conversation The loaded conversation whose config applies, if any.
 * @returns The config with origins.
 */
export async function effectiveConfig(
  session: Session,
  workspace: Workspace | undefined,
  conversation?: LoadedConversation,
): Promise<LoadedConfig> {
  const loaded = await loadConfig({
    env: session.env,
    envVariables: session.envVariables,
    cwd: session.cwd,
    workspace,
    conversation: conversation === undefined ? undefined : {
      id: conversation.ref.id,
      dir: conversation.source.dir,
      baseConfig: await readBaseConfig(conversation.source.dir),
      stream: conversation.stream,
    },
    cfg: session.cfg,
    model: session.model,
  });
  for (const warning of loaded.warnings) session.warn?.(warning);
  return loaded;
}

/**
 * The workspace a command works in: `--workspace DIR`, else the first parent
 * of the working directory with a `.jp` directory.
 *
 * @param session Where the flow runs.
 * @returns The workspace.
 * @throws {WorkspaceNotFoundError} When there is none.
 */
export async function currentWorkspace(
  session: Session,
): Promise<Workspace> {
  return session.workspaceDir === undefined
    ? await Workspace.find(session.cwd, session.env)
    : await Workspace.open(session.workspaceDir, session.env);
}

/**
 * The effective config for commands that inspect it: the workspace when there
 * is one, plus the layer of the conversation named by `--conversation`.
 *
 * @param session Where the flow runs.
 * @param conversation The `--conversation` value, if given.
 * @returns The config with origins.
 */
export async function inspectedConfig(
  session: Session,
  conversation: string | undefined,
): Promise<LoadedConfig> {
  const workspace = await optionalWorkspace(session);
  const loaded = conversation === undefined
    ? undefined
    : await loadConversation(
      await resolveTarget(workspace, conversation),
    );
  return await effectiveConfig(session, workspace, loaded);
}

/**
 * Like {@linkcode currentWorkspace}, but `undefined` instead of an error when
 * no `--workspace` was given and no `.jp` directory is found (commands that
 * also take a conversation directory by path).
 *
 * @param session Where the flow runs.
 * @returns The workspace, if any.
 */
export async function optionalWorkspace(
  session: Session,
): Promise<Workspace | undefined> {
  try {
    return await currentWorkspace(session);
  } catch (error) {
    if (
      error instanceof WorkspaceNotFoundError &&
      session.workspaceDir === undefined
    ) return undefined;
    throw error;
  }
}

/** No conversation was named and the workspace has none. */
export class NoConversationsError extends JptError {
  /** Says so, with the fix. */
  constructor() {
    super(
      "No conversations in this workspace: start one with `jpt query --new`",
    );
  }
}

/**
 * The conversation a command works on: the one named (`jp-c<id>`, `<id>` or
 * a directory, with or without a workspace), else the workspace's most
 * recently activated one.
 *
 * @param session Where the flow runs.
 * @param target What the user named, if anything.
 * @returns The workspace (when there is one) and the conversation.
 * @throws {NoConversationsError} When nothing is named and there is no conversation.
 */
export async function targetConversation(
  session: Session,
  target: string | undefined,
): Promise<{ workspace: Workspace | undefined; ref: ConversationRef }> {
  if (target !== undefined) {
    const workspace = await optionalWorkspace(session);
    return { workspace, ref: await resolveTarget(workspace, target) };
  }
  const workspace = await currentWorkspace(session);
  const ref = await mostRecentConversation(workspace);
  if (ref === undefined) throw new NoConversationsError();
  return { workspace, ref };
}

/** jp's conversation keywords, and what they name. */
export const CONVERSATION_KEYWORDS = [
  "last",
  "last-activated",
  "last-created",
] as const;

/**
 * Finds the conversation a user named: one of jp's keywords (`last` and
 * `last-activated`: the most recently activated; `last-created`: the newest
 * id), `jp-c<id>`, `<id>`, or a conversation directory.
 *
 * @param workspace The workspace, when there is one.
 * @param target What the user typed.
 * @returns The conversation.
 * @throws {NoConversationsError} For a keyword in a workspace without conversations.
 * @throws {ConversationNotFoundError} When nothing matches.
 */
export async function resolveTarget(
  workspace: Workspace | undefined,
  target: string,
): Promise<ConversationRef> {
  if (
    workspace !== undefined &&
    (CONVERSATION_KEYWORDS as readonly string[]).includes(target)
  ) {
    const ref = target === "last-created"
      ? (await listConversations(workspace)).at(-1)
      : await mostRecentConversation(workspace);
    if (ref === undefined) throw new NoConversationsError();
    return ref;
  }
  return await resolveConversation(workspace, target);
}
