/**
 * Whether an external program the tests lean on is installed.
 *
 * @module
 */

/**
 * Runs a program once and tells whether it ran successfully.
 *
 * @param program The program.
 * @param args Its arguments (usually `--version`).
 * @returns `true` when it exited 0.
 */
export function canRun(program: string, args: string[]): boolean {
  try {
    return new Deno.Command(program, {
      args,
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
  } catch {
    return false;
  }
}
