/**
 * What every command's definition gets from the program: the context of the
 * run, a way to set the exit code, the Ctrl-C signal, and the shared option
 * parsers.
 *
 * @module
 */

import { InvalidArgumentError, Option } from "./command.ts";
import type { CliContext } from "./context.ts";

/** Handed to every `addXCommand`. */
export interface CommandDeps {
  /** The context, built from the global options once they are parsed. */
  context(): CliContext;
  /** Sets the exit code the run ends with. */
  setExitCode(code: number): void;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
}

/**
 * The `--json` option.
 *
 * @returns A fresh option.
 */
export function jsonOption(): Option<"--json"> {
  return new Option("--json", "print JSON");
}

/**
 * Parses a whole number of at least 1 (`--batch-size`).
 *
 * @param value The text given.
 * @returns The number.
 */
export function parseCount(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1) {
    throw new InvalidArgumentError("expected a whole number of at least 1");
  }
  return size;
}

/**
 * Parses a whole number of at least 0 (`worker --max-turns`).
 *
 * @param value The text given.
 * @returns The number.
 */
export function parseWhole(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0) {
    throw new InvalidArgumentError("expected a whole number of at least 0");
  }
  return count;
}

/**
 * Parses a positive number of seconds (`--timeout`).
 *
 * @param value The text given.
 * @returns The seconds.
 */
export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new InvalidArgumentError("expected a positive number of seconds");
  }
  return seconds;
}
