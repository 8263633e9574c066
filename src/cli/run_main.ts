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
import { importLazily } from "../platform/lazy_import.ts";

/**
 * `jpt plugin serve <name>`, what the launchers of `jpt plugin install` run:
 * standard output carries jp's protocol and nothing else (whatever a
 * library prints with `console` goes to standard error), and the process
 * ends as soon as the plugin sent `exit` (jp keeps its input open).
 */
async function servePluginProcess(name: string): Promise<number> {
  const { servePlugin } = await importLazily("cli/plugin_run.ts");
  const stdout = Deno.stdout;
  const encoder = new TextEncoder();
  // A host that closed its end (jp killed, both pipes gone) reads nothing
  // more: output is dropped instead of thrown, and the closed input stops
  // the run (exit 130), with no stack on a stream nobody reads.
  let hostGone = false;
  const write = (text: string) => {
    if (hostGone) return;
    const bytes = encoder.encode(text);
    let written = 0;
    try {
      while (written < bytes.length) {
        written += stdout.writeSync(bytes.subarray(written));
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
      hostGone = true;
    }
  };
  const writeError = (text: string) => {
    try {
      Deno.stderr.writeSync(encoder.encode(text));
    } catch {
      // jp reads its plugins' standard error for traces only.
    }
  };
  for (const method of ["log", "info", "debug", "table", "dir"] as const) {
    console[method] = console.error;
  }
  return await servePlugin(name, {
    input: Deno.stdin.readable,
    write,
    stderr: writeError,
    stdinIsTerminal: Deno.stdin.isTerminal(),
    variables: Deno.env.toObject(),
    cwd: Deno.cwd(),
  });
}

/**
 * Runs jpt with `Deno.args` and returns the exit code for the caller to set.
 *
 * @returns 0 ok, 1 failure, 2 usage error, 130 interrupted.
 */
export async function runMain(): Promise<number> {
  if (Deno.args[0] === "plugin" && Deno.args[1] === "serve") {
    Deno.exit(await servePluginProcess(Deno.args[2] ?? ""));
  }
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
