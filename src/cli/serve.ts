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
import { jptCommand } from "./hand_off.ts";
import type { Session } from "../app/session.ts";
import type { CliContext } from "./context.ts";
import type { ViewerReader } from "../web/server.ts";

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
    // The server's reading process (see `processReader`): not for people.
    .addOption(new Option("--outline-of <id>").hideHelp())
    .addOption(new Option("--list").hideHelp())
    .addOption(new Option("--search <words>").hideHelp())
    .addHelpText("after", SERVE_HELP)
    .action(async (opts) => {
      const roots = await importLazily("app/read/viewer_roots.ts");
      const context = deps.context();
      if (
        opts.outlineOf !== undefined || opts.list === true ||
        opts.search !== undefined
      ) {
        await readForServer(context, roots, opts);
        deps.setExitCode(ExitCode.ok);
        return;
      }
      const { serveWorkspace, newToken } = await importLazily("web/server.ts");
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
        roots: await roots.viewerRoots(context),
        signal: deps.signal,
        reader: processReader(context),
        onListen: (url) => {
          context.io.out(`${url}\n`);
          if (opts.open === true) openBrowser(context.env, url);
        },
      });
      deps.setExitCode(ExitCode.ok);
    });
}

/**
 * The server's reader: each whole conversation (and the list) is
 * read by a jpt process of its own that prints it as JSON, so the parse of
 * a large file is freed with that process, never held by the server.
 */
function processReader(session: Session): ViewerReader {
  const read = async (args: string[]) => {
    const [program, ...leading] = jptCommand();
    const workspace = session.workspaceDir === undefined
      ? []
      : ["--workspace", session.workspaceDir];
    const output = await new Deno.Command(program!, {
      args: [...leading, ...workspace, "serve", ...args],
      cwd: session.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      const said = new TextDecoder().decode(output.stderr).trim();
      throw new Error(
        said === "" ? `jpt serve ${args.join(" ")} failed` : said,
      );
    }
    return JSON.parse(new TextDecoder().decode(output.stdout));
  };
  return {
    outline: (ref) => read(["--outline-of", ref.id]),
    list: () => read(["--list"]),
    // One argument: words that start with "-" stay words.
    search: (query) => read([`--search=${query}`]),
  };
}

/** What a reading process prints: a conversation's outline, the list, or a search's turns. */
async function readForServer(
  session: CliContext,
  roots: typeof import("../app/read/viewer_roots.ts"),
  asked: { outlineOf?: string; search?: string },
): Promise<void> {
  if (asked.search !== undefined) {
    session.io.out(
      JSON.stringify(await roots.viewerSearch(session, asked.search)),
    );
    return;
  }
  if (asked.outlineOf === undefined) {
    session.io.out(JSON.stringify(await roots.viewerList(session)));
    return;
  }
  const viewed = await roots.viewedConversation(session, asked.outlineOf);
  if (viewed === undefined) {
    throw new UsageError(`no conversation jp-c${asked.outlineOf}`);
  }
  session.io.out(
    JSON.stringify(await roots.viewerOutlineData(session, viewed.ref)),
  );
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
