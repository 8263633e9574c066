/**
 * Runs a snippet in a child Deno and waits for it to exit on its own: for
 * tests that something (an armed timer) does not keep a process alive. A
 * child still held after 20 s is killed, so such a test fails instead of
 * hanging.
 *
 * @module
 */

/** What the child printed, and how it ended. */
export interface EvalResult {
  /** The exit code (not 0 when it was killed). */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

/**
 * Evaluates `code` in a child `deno eval` and waits for it to exit.
 *
 * @param code The snippet (it may import modules by absolute URL).
 * @returns Its exit code and output.
 */
export async function evalToExit(code: string): Promise<EvalResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const giveUp = setTimeout(() => child.kill(), 20_000);
  const output = await child.output();
  clearTimeout(giveUp);
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}
