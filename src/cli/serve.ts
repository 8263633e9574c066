/**
 * `jpt serve [--port N] [--host H] [--open]`: the workspace in the browser,
 * read-only, navigated by turn summaries, live as summaries land
 * (`src/web/`). Prints the address with its token; Ctrl-C stops it.
 *
 * @module
 */

import { type CommandUnknownOpts, Option } from "./command.ts";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `serve` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addServeCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("serve")
    .description(
      "read the workspace's conversations in the browser, by their turn summaries, live",
    )
    .option("--port <n>", "the port (default: a free one)", parsePort)
    .option(
      "--host <address>",
      "the address to listen on (default 127.0.0.1: this machine only)",
    )
    .option("--open", "open the viewer in the browser")
    // The server's reading processes (`serve_reader.ts`): not for people.
    .addOption(new Option("--page-of <id>").hideHelp())
    .addOption(new Option("--page <n>").hideHelp())
    .addOption(new Option("--summaries-of <id>").hideHelp())
    .addOption(new Option("--list").hideHelp())
    .addOption(new Option("--search").hideHelp())
    .addHelpText("after", SERVE_HELP)
    .action(async (opts) => {
      const context = deps.context();
      const reading = await importLazily("cli/serve_reader.ts");
      if (reading.isReading(opts)) {
        await reading.readForServer(context, opts);
        deps.setExitCode(ExitCode.ok);
        return;
      }
      const { serveWorkspace, newToken } = await importLazily("web/server.ts");
      const { viewerRoots } = await importLazily("app/read/viewer_roots.ts");
      const hostname = opts.host ?? "127.0.0.1";
      if (hostname !== "127.0.0.1" && hostname !== "localhost") {
        context.warn?.(
          `listening on ${hostname}: other machines can reach the viewer (the token in its address still guards it)`,
        );
      }
      const token = newToken();
      await serveWorkspace(context, {
        hostname,
        port: opts.port ?? 0,
        token,
        roots: await viewerRoots(context),
        signal: deps.signal,
        reader: reading.processReader(context),
        onListen: (url) => {
          context.io.out(`${url}\n`);
          if (opts.open === true) openBrowser(context.env, url);
        },
      });
      deps.setExitCode(ExitCode.ok);
    });
}

const SERVE_HELP =
  "\nServes a read-only viewer of the workspace's conversations (workspace and user-local, as\n" +
  "conversation ls lists them): each conversation's outline by turn summary beside its turns\n" +
  "(Markdown rendered, code highlighted, reasoning and tool calls folded; j/k or the arrows\n" +
  "move between turns), search across conversations ranked as jpt find ranks, and pages that\n" +
  "update as summaries are written. The address printed carries a random token; a request\n" +
  "without it, or naming another host, is refused. It never writes a file. Ctrl-C stops it.\n\n" +
  "Examples:\n  jpt serve\n  jpt serve --port 8123 --open\n";

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port ${value}: give a port from 0 to 65535`);
  }
  return port;
}

/** Opens the URL in the desktop's browser (best effort; never a shell). */
function openBrowser(
  env: (name: string) => string | undefined,
  url: string,
): void {
  const command = Deno.build.os === "darwin"
    ? "open"
    : Deno.build.os === "windows"
    ? "explorer"
    : "xdg-open";
  try {
    new Deno.Command(env("BROWSER") ?? command, {
      args: [url],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn().unref();
  } catch {
    // No browser here: the address was printed.
  }
}
