/**
 * In-process sessions for flow tests: a `Session` over a temporary
 * workspace whose environment is a plain map (nothing of the real
 * environment leaks in), and a model endpoint on a loopback fake.
 *
 * @module
 */

import { join } from "node:path";
import type { Session } from "../../src/app/session.ts";
import type { TempWorkspace } from "./workspace.ts";

/**
 * A session rooted in a temporary workspace.
 *
 * @param ws The workspace (its `env` points jp's and jpt's directories into it).
 * @param env More environment variables.
 * @returns The session.
 */
export function testSession(
  ws: TempWorkspace,
  env: Record<string, string> = {},
): Session {
  const variables: Record<string, string> = {
    ...ws.env,
    HOME: join(ws.root, ".."),
    JPT_MODEL_RETRIES: "0",
    ...env,
  };
  return {
    env: (name) => variables[name],
    cwd: ws.root,
    workspaceDir: ws.root,
    cfg: [],
    model: undefined,
    envVariables: variables,
  };
}

/**
 * Writes `.jp/config.toml` that sends every model role to a loopback
 * server as the `ollama` provider (no key).
 *
 * @param ws The workspace.
 * @param url The server's URL.
 * @param extra More TOML.
 */
export async function useFakeModel(
  ws: TempWorkspace,
  url: string,
  extra = "",
): Promise<void> {
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${url}"\n${extra}`,
  );
}

/**
 * Replaces `Deno.Command` for the length of `fn` with one that records and
 * refuses every process start, so a test can assert that none was started.
 *
 * @param fn The code under test.
 * @returns What `fn` returned and the programs it tried to start.
 */
export async function withoutProcesses<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; started: string[] }> {
  const started: string[] = [];
  const original = Deno.Command;
  // deno-lint-ignore no-explicit-any
  (Deno as any).Command = class {
    constructor(program: string | URL) {
      started.push(String(program));
      throw new Error(`a process was started: ${program}`);
    }
  };
  try {
    return { value: await fn(), started };
  } finally {
    // deno-lint-ignore no-explicit-any
    (Deno as any).Command = original;
  }
}
