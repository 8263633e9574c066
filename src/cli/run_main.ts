/**
 * The process-level entry: wires Ctrl-C to an abort signal (a second Ctrl-C
 * exits at once) and runs the command line with the real streams and
 * environment.
 *
 * @module
 */

import { processIo } from "./output.ts";
import { secretsOf } from "./redact.ts";
import { colourAllowed, loadColors } from "./style.ts";
import { runCli } from "./program.ts";

/**
 * Runs jpt with `Deno.args` and returns the exit code for the caller to set.
 *
 * @returns 0 ok, 1 failure, 2 usage error, 130 interrupted.
 */
export async function runMain(): Promise<number> {
  const interrupt = new AbortController();
  const onInterrupt = () => {
    if (interrupt.signal.aborted) Deno.exit(130);
    interrupt.abort(new DOMException("Interrupted", "AbortError"));
  };
  Deno.addSignalListener("SIGINT", onInterrupt);
  // SIGTERM stops as cleanly as Ctrl-C (a service manager stopping jpt watch).
  const onTerminate = () =>
    interrupt.abort(new DOMException("Terminated", "AbortError"));
  if (Deno.build.os !== "windows") {
    Deno.addSignalListener("SIGTERM", onTerminate);
  }
  const variables = Deno.env.toObject();
  const env = (name: string) => Deno.env.get(name);
  const io = processIo(secretsOf(variables));
  // Colour costs start-up (picocolors): loaded only when it can be shown.
  const colors = colourAllowed(io.stdoutIsTerminal, env) ||
      colourAllowed(io.stderrIsTerminal, env)
    ? await loadColors()
    : undefined;
  try {
    return await runCli(Deno.args, {
      io,
      env,
      ...(colors === undefined ? {} : { colors }),
      cwd: Deno.cwd(),
      envVariables: variables,
      signal: interrupt.signal,
    });
  } finally {
    Deno.removeSignalListener("SIGINT", onInterrupt);
    if (Deno.build.os !== "windows") {
      Deno.removeSignalListener("SIGTERM", onTerminate);
    }
  }
}
