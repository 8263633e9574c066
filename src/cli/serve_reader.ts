/**
 * `jpt serve`'s reading processes. The server reads no whole conversation
 * itself: each page, summaries list, conversation list and search is read
 * by a jpt process of its own (`jpt serve --page-of ID`, `--summaries-of
 * ID`, `--list`, `--search` with the words on its standard input, never on
 * its command line; options not for people), started as the detached worker
 * is (`jptCommand`), whose output the server streams on or reads as JSON.
 * The parse of a large conversation is freed with that process: the
 * server's memory does not grow with the files it shows.
 *
 * @module
 */

import { jptCommand } from "./hand_off.ts";
import type { Session } from "../app/session.ts";
import type { CliContext } from "./context.ts";
import type { ViewerReader } from "../web/viewer_reader.ts";
import { importLazily } from "../platform/lazy_import.ts";
import { Slots } from "../platform/slots.ts";

/**
 * Reading processes at once: each holds a parsed conversation for its
 * moment, so many pages asking together (a change seen by every open tab)
 * take turns rather than all parse at once.
 */
const READERS_AT_ONCE = 2;

/** What a reading process is asked for (the hidden options of `jpt serve`). */
export interface ServeReading {
  /** A conversation's page. */
  pageOf?: string | undefined;
  /** Which page (from 0; a whole number). */
  page?: string | undefined;
  /** A conversation's summaries, as JSON. */
  summariesOf?: string | undefined;
  /** The conversation list, as JSON. */
  list?: boolean | undefined;
  /** A search's turns, as JSON (the words on standard input). */
  search?: boolean | undefined;
}

/**
 * Whether the options ask for a reading process.
 *
 * @param asked The options.
 * @returns `true` when one of the reading options is given.
 */
export function isReading(asked: ServeReading): boolean {
  return asked.pageOf !== undefined || asked.summariesOf !== undefined ||
    asked.list === true || asked.search === true;
}

/**
 * The server's reader: a process per request.
 *
 * @param session The server's session (its workspace and directory).
 * @returns The reader.
 */
export function processReader(session: Session): ViewerReader {
  const slots = new Slots(READERS_AT_ONCE);
  const command = (args: string[], stdin: "null" | "piped" = "null") => {
    const [program, ...leading] = jptCommand();
    const workspace = session.workspaceDir === undefined
      ? []
      : ["--workspace", session.workspaceDir];
    return new Deno.Command(program!, {
      args: [...leading, ...workspace, "serve", ...args],
      cwd: session.cwd,
      stdin,
      stdout: "piped",
      stderr: "piped",
    });
  };
  const failure = (args: string[], stderr: string) =>
    new Error(
      stderr.trim() === ""
        ? `jpt serve ${args.join(" ")} failed`
        : stderr.trim(),
    );
  const read = async (args: string[], input?: string) => {
    const giveBack = await slots.take();
    try {
      const child = command(args, input === undefined ? "null" : "piped")
        .spawn();
      if (input !== undefined) {
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(input));
        await writer.close();
      }
      const output = await child.output();
      if (!output.success) {
        throw failure(args, new TextDecoder().decode(output.stderr));
      }
      return JSON.parse(new TextDecoder().decode(output.stdout));
    } finally {
      giveBack();
    }
  };
  // The process's output from its first bytes on: a process that fails
  // before printing anything is an error with what it said.
  // The slot is held until the output has been read or the browser left.
  const stream = async (args: string[]) => {
    const giveBack = await slots.take();
    let child: Deno.ChildProcess;
    let stderr: Promise<string>;
    let output: ReadableStreamDefaultReader<Uint8Array>;
    let first: ReadableStreamReadResult<Uint8Array>;
    try {
      child = command(args).spawn();
      stderr = new Response(child.stderr).text();
      output = child.stdout.getReader();
      first = await output.read();
      if (first.done) {
        await child.status;
        throw failure(args, await stderr);
      }
    } catch (error) {
      giveBack();
      throw error;
    }
    const opened = first.value;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(opened);
      },
      async pull(controller) {
        const next = await output.read();
        if (!next.done) return controller.enqueue(next.value);
        controller.close();
        await Promise.all([child.status, stderr]);
        giveBack();
      },
      async cancel() {
        // The browser went away: so does the process.
        try {
          child.kill();
        } catch {
          // It had ended.
        }
        await output.cancel().catch(() => {});
        await Promise.all([child.status, stderr.catch(() => "")]);
        giveBack();
      },
    });
  };
  return {
    page: (id, page) => stream(["--page-of", id, "--page", String(page)]),
    summaries: (id) => stream(["--summaries-of", id]),
    list: () => read(["--list"]),
    // On standard input: what a user searches for may be private, and a
    // command line is visible to every user of the machine.
    search: (query) => read(["--search"], query),
  };
}

/**
 * What a reading process prints: a conversation's page (piece by piece, as
 * it is made), its summaries, the list or a search's turns.
 *
 * @param session Where the flow runs.
 * @param asked What to read.
 */
export async function readForServer(
  session: CliContext,
  asked: ServeReading,
): Promise<void> {
  const viewer = await importLazily("web/viewer_reader.ts");
  if (asked.pageOf !== undefined) {
    const pieces = await viewer.conversationPagePieces(
      session,
      asked.pageOf,
      Math.max(0, Number(asked.page ?? 0) | 0),
    );
    for (const piece of pieces) session.io.out(piece);
    return;
  }
  if (asked.summariesOf !== undefined) {
    session.io.out(await viewer.summariesJson(session, asked.summariesOf));
    return;
  }
  const roots = await importLazily("app/read/viewer_roots.ts");
  session.io.out(JSON.stringify(
    asked.search === true
      ? await roots.viewerSearch(session, await session.io.readStdin())
      : await roots.viewerList(session),
  ));
}
