/**
 * `jpt check --format github`: one GitHub Actions workflow command per
 * problem (`::error file=…,line=…,col=…::message`, `::warning …`), so a
 * pull request shows each on the file and line it is about. Paths are
 * relative to the working directory; a byte offset in a message becomes a
 * line and a column (counted in characters) of the file it names.
 *
 * @module
 */

import { join, relative } from "../platform/path.ts";
import type {
  ConfigFileCheck,
  ConversationCheck,
} from "../app/read/check_paths.ts";

/** Files a conversation's message may be about; events.json by default. */
const NAMED_FILES = ["base_config.json", "metadata.json", "events.json"];

/**
 * The annotations of a check report.
 *
 * @param cwd The working directory (paths are shown relative to it).
 * @param conversations The conversations' results.
 * @param configFiles The config files' results.
 * @param warnings Warnings about a workspace as a whole (each names its path first).
 * @returns The lines, each with its newline.
 */
export async function githubAnnotations(
  cwd: string,
  conversations: readonly ConversationCheck[],
  configFiles: readonly ConfigFileCheck[],
  warnings: readonly string[] = [],
): Promise<string> {
  let text = "";
  // A file with several problems is read once.
  const files = new Map<string, Promise<Uint8Array | undefined>>();
  const bytesOf = (path: string) => {
    let bytes = files.get(path);
    if (bytes === undefined) {
      files.set(path, bytes = Deno.readFile(path).catch(() => undefined));
    }
    return bytes;
  };
  for (const warning of warnings) {
    const path = warning.slice(0, Math.max(0, warning.indexOf(":")));
    text += command("warning", relative(cwd, path), warning, {});
  }
  for (const result of configFiles) {
    for (const error of result.errors) {
      const at = /line (\d+), column (\d+)/.exec(error);
      text += command("error", relative(cwd, result.path), error, {
        line: at === null ? undefined : Number(at[1]),
        col: at === null ? undefined : Number(at[2]),
      });
    }
  }
  for (const result of conversations) {
    for (
      const [kind, messages] of [
        ["error", result.errors],
        ["warning", result.warnings],
      ] as const
    ) {
      for (const message of messages) {
        const name = NAMED_FILES.find((file) => message.startsWith(file)) ??
          "events.json";
        const path = join(result.path, name);
        const offset = /at byte (\d+)/.exec(message);
        const position = offset === null
          ? {}
          : positionOf(await bytesOf(path), Number(offset[1]));
        text += command(kind, relative(cwd, path), message, position);
      }
    }
  }
  return text;
}

/** The 1-based line and column of a byte offset of a file's bytes. */
function positionOf(
  bytes: Uint8Array | undefined,
  offset: number,
): { line?: number; col?: number } {
  if (bytes === undefined) return {};
  const before = new TextDecoder().decode(
    bytes.subarray(0, Math.min(offset, bytes.length)),
  );
  const lastBreak = before.lastIndexOf("\n");
  return {
    line: before.split("\n").length,
    col: [...before.slice(lastBreak + 1)].length + 1,
  };
}

/** One workflow command, its data and properties escaped as GitHub reads them. */
function command(
  kind: "error" | "warning",
  file: string,
  message: string,
  position: { line?: number | undefined; col?: number | undefined },
): string {
  const properties = [
    `file=${escapeProperty(file)}`,
    ...(position.line === undefined ? [] : [`line=${position.line}`]),
    ...(position.col === undefined ? [] : [`col=${position.col}`]),
  ].join(",");
  return `::${kind} ${properties}::${escapeData(message)}\n`;
}

function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll(
    "\n",
    "%0A",
  );
}

function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}
