/**
 * This process's Unix session id, which jp uses to tell terminals apart
 * (`getsid(0)` in `crates/jp_cli/src/session.rs`). Deno has no `getsid`
 * and reads `/proc` only with every permission, so jpt asks `ps` for it,
 * once per run and only when a command needs the session (nothing named
 * and no `$JP_SESSION`). Without `ps`, or on Windows (where jp uses the
 * console window), the terminals' own variables identify the session.
 *
 * @module
 */

/**
 * A probe for the session id, asking `ps` at most once.
 *
 * @returns A function resolving to the id, or `undefined` when it cannot be learned.
 */
export function processSessionProbe(): () => Promise<string | undefined> {
  let asked: Promise<string | undefined> | undefined;
  return () => asked ??= askPs();
}

async function askPs(): Promise<string | undefined> {
  if (Deno.build.os === "windows") return undefined;
  try {
    const { success, stdout } = await new Deno.Command("ps", {
      args: ["-o", "sid=", "-p", String(Deno.pid)],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    const text = new TextDecoder().decode(stdout).trim();
    return success && /^\d+$/.test(text) ? text : undefined;
  } catch {
    // No `ps`, or no permission to run it.
    return undefined;
  }
}
