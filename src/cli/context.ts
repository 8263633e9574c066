/**
 * What every command gets: the session its flow runs in, plus the streams it
 * prints to and `--verbose`.
 *
 * @module
 */

import type { Session } from "../app/session.ts";
import type { Io } from "./output.ts";

/** A {@linkcode Session} with the command's streams and `--verbose`. */
export interface CliContext extends Session {
  /** Output streams. */
  io: Io;
  /** `--verbose`. */
  verbose: boolean;
}
