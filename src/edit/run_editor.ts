/**
 * Opens the user's editor: `$JP_EDITOR`, else `$VISUAL`, else `$EDITOR`,
 * else `vi`. The variable may hold a command with arguments
 * (`code --wait`); they are split at whitespace.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import type { EnvReader } from "../workspace/workspace.ts";

/** The editor could not run or exited with an error. */
export class EditorError extends JptError {
  /**
   * @param message What happened.
   */
  constructor(message: string) {
    super(message);
  }
}

/**
 * The editor command line.
 *
 * @param env Environment access.
 * @returns The program and its arguments.
 */
export function editorCommand(env: EnvReader): string[] {
  const value =
    [env("JP_EDITOR"), env("VISUAL"), env("EDITOR")].find((candidate) =>
      candidate?.trim()
    ) ?? "vi";
  return value.trim().split(/\s+/);
}

/**
 * Runs the editor on a file and waits for it.
 *
 * @param env Environment access.
 * @param file The file to edit.
 * @param cwd The directory it runs in (the plan's, so event files open by name).
 * @throws {EditorError} When the editor cannot start or exits with an error.
 */
export async function runEditor(
  env: EnvReader,
  file: string,
  cwd: string,
): Promise<void> {
  const [program, ...args] = editorCommand(env);
  let status: Deno.CommandStatus;
  try {
    status = await new Deno.Command(program!, {
      args: [...args, file],
      cwd,
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
  } catch (error) {
    throw new EditorError(
      `Cannot start the editor "${program}": ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  if (!status.success) {
    throw new EditorError(
      `The editor "${program}" exited with code ${status.code}; nothing was written`,
    );
  }
}
