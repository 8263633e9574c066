/**
 * What every command gets: the session its flow runs in, plus the streams it
 * prints to and `--verbose`.
 *
 * @module
 */

import type { Session } from "../app/session.ts";
import type { Io } from "./output.ts";
import type { Style } from "./style.ts";

/** A {@linkcode Session} with the command's streams and `--verbose`. */
export interface CliContext extends Session {
  /** Output streams. */
  io: Io;
  /** `--verbose`: log lines go to standard error. */
  verbose: boolean;
  /**
   * Writes one log line (a flow's diagnostics): on standard error with
   * `--verbose` or `--log-file -`, into the file `--log-file` names, else
   * nowhere.
   */
  log(line: string): void;
  /** Colours for standard output (off unless it is a terminal). */
  outStyle: Style;
  /** Colours for standard error (off unless it is a terminal). */
  errStyle: Style;
}
