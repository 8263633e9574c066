/**
 * The jpt command line: `deno run -A main.ts <command> ...`. The only place
 * the process's exit code is decided.
 *
 * @module
 */

import { processIo } from "./src/cli/output.ts";
import { runCli } from "./src/cli/program.ts";

if (import.meta.main) {
  const interrupt = new AbortController();
  let interrupted = false;
  const onInterrupt = () => {
    // A second Ctrl-C exits at once.
    if (interrupted) Deno.exit(130);
    interrupted = true;
    interrupt.abort(new DOMException("Interrupted", "AbortError"));
  };
  Deno.addSignalListener("SIGINT", onInterrupt);
  try {
    Deno.exitCode = await runCli(Deno.args, {
      io: processIo(),
      env: (name) => Deno.env.get(name),
      cwd: Deno.cwd(),
      envVariables: Deno.env.toObject(),
      signal: interrupt.signal,
    });
  } finally {
    Deno.removeSignalListener("SIGINT", onInterrupt);
  }
}
