/**
 * Long output on a terminal goes through the user's pager (`$PAGER`, else
 * `less -R`), as git does; anything else is printed as it is.
 *
 * @module
 */

import type { CliContext } from "./context.ts";

/**
 * Prints text, through the pager when standard output is a terminal.
 *
 * @param context The command's context.
 * @param text The text.
 */
export async function page(context: CliContext, text: string): Promise<void> {
  const pager = context.env("PAGER") ?? "less -R";
  if (!context.io.stdoutIsTerminal || pager.trim() === "" || pager === "cat") {
    context.io.out(text);
    return;
  }
  try {
    const child = new Deno.Command("sh", {
      args: ["-c", pager],
      stdin: "piped",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(text)).catch(() => {});
    await writer.close().catch(() => {});
    await child.status;
  } catch {
    // No pager to run: print it.
    context.io.out(text);
  }
}
