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
import type { HostConfig, LoadedConfig } from "../config/load_config.ts";
import type { Picker } from "./pick.ts";
import type { ConfigFileCache } from "../config/config_file_cache.ts";
import type { LoadedConversation } from "../workspace/conversation_io.ts";
import { JptError } from "../errors/jpt_error.ts";
import { importLazily } from "../platform/lazy_import.ts";

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
  /**
   * This process's Unix session id (`getsid(0)`), which identifies jp's
   * terminal session when `$JP_SESSION` is not set. The CLI asks `ps`; left
   * out, only the variables identify a session (a library never spawns).
   */
  processSession?: () => Promise<string | undefined>;
  /**
   * Asks the user to pick from a list (jp's pickers): the command line
   * gives it on a terminal; without it a picker is a usage error.
   */
  pick?: Picker;
  /** Set when jpt runs as a jp command plugin: jp's config and the plugin's options. */
  host?: HostConfig | undefined;
  /**
   * Set when jpt runs as a jp command plugin: the conversations jp lists
   * (its `list_conversations`); `--all` covers those.
   */
  jpConversations?: () => Promise<string[]>;
}

/**
 * The effective config for a command: jp's layers, the conversation's own
 * layer when one is given, and the command line's `--cfg` and `--model`.
 *
 * @param session Where the flow runs.
 * @param workspace The workspace, if any.
 * @param conversation The loaded conversation whose config applies, if any.
 * @param files Config files already read in this run, to reuse.
 * @returns The config with origins.
 */
export async function effectiveConfig(
  session: Session,
  workspace: Workspace | undefined,
  conversation?: LoadedConversation,
  files?: ConfigFileCache,
): Promise<LoadedConfig> {
  // Loaded on first use: listing turns of a named conversation reads no config.
  const [{ loadConfig }, { readBaseConfig }] = await Promise.all([
    importLazily("config/load_config.ts"),
    importLazily("config/config_file.ts"),
  ]);
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
    host: session.host,
    files,
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
