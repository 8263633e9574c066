/**
 * Where a command's output goes when jpt runs as a jp plugin: standard
 * output carries protocol lines only, so what a command prints becomes
 * `print` messages (plain text, no terminal control) and what it writes to
 * standard error becomes `print` lines on the `chrome` channel (warnings,
 * progress), except the `error:` line, which becomes the `exit` reason jp
 * shows. Secrets are redacted as on the terminal.
 *
 * @module
 */

import type { Io } from "./output.ts";
import { sanitizeText } from "./output.ts";
import { redactSecrets } from "./redact.ts";
import type { PluginMessage } from "./plugin_protocol.ts";

/** An {@linkcode Io} speaking jp's protocol, and what the command failed with. */
export interface PluginIo {
  /** The streams the command writes to. */
  io: Io;
  /** The command's `error:` line (without the prefix), once it printed one. */
  readonly reason: string | undefined;
}

/**
 * Creates the plugin's streams.
 *
 * @param send Sends a message to jp.
 * @param secrets Values never to print.
 * @returns The streams.
 */
export function pluginIo(
  send: (message: PluginMessage) => void,
  secrets: readonly string[],
): PluginIo {
  let reason: string | undefined;
  let partial = "";
  const clean = (text: string) => sanitizeText(redactSecrets(text, secrets));
  const io: Io = {
    out: (text) => {
      if (text === "") return;
      send({
        type: "print",
        text: clean(text),
        channel: "content",
        format: "plain",
      });
    },
    err: (text) => {
      partial += text;
      let end: number;
      while ((end = partial.indexOf("\n")) !== -1) {
        const line = clean(partial.slice(0, end));
        partial = partial.slice(end + 1);
        if (reason === undefined && line.startsWith("error: ")) {
          reason = line.slice("error: ".length);
        } else if (line !== "(run with --verbose for details)") {
          send({
            type: "print",
            text: `${line}\n`,
            channel: "chrome",
            format: "plain",
          });
        }
      }
    },
    stdoutIsTerminal: false,
    stderrIsTerminal: false,
    stdinIsTerminal: false,
    readStdin: () => Promise.resolve(""),
  };
  return {
    io,
    get reason() {
      return reason;
    },
  };
}
