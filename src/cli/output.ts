/**
 * Everything the commands print goes through here: one sink per stream, and
 * sanitizing of untrusted text before it reaches a terminal.
 *
 * @module
 */

import {
  singleLine,
  stripControlCharacters,
} from "../conversation/control_chars.ts";

/** Where a command writes; tests replace it. */
export interface Io {
  /** Writes to standard output. */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** Whether standard output is a terminal. */
  readonly stdoutIsTerminal: boolean;
  /** Whether standard error is a terminal. */
  readonly stderrIsTerminal: boolean;
  /** Whether standard input is a terminal (nothing piped). */
  readonly stdinIsTerminal: boolean;
  /** Reads all of standard input. */
  readStdin(): Promise<string>;
}

const encoder = new TextEncoder();

/**
 * The process's own standard streams.
 *
 * @returns An {@linkcode Io} writing to stdout and stderr.
 */
export function processIo(): Io {
  return {
    out: (text) => writeAll(Deno.stdout, encoder.encode(text)),
    err: (text) => writeAll(Deno.stderr, encoder.encode(text)),
    stdoutIsTerminal: Deno.stdout.isTerminal(),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    stdinIsTerminal: Deno.stdin.isTerminal(),
    readStdin: () => new Response(Deno.stdin.readable).text(),
  };
}

function writeAll(stream: typeof Deno.stdout, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) {
    written += stream.writeSync(bytes.subarray(written));
  }
}

/**
 * Makes untrusted text safe to print on one line: escape sequences and
 * control characters removed, line breaks and tabs turned into spaces.
 *
 * @param text Untrusted text (model output, file content).
 * @returns Printable single-line text.
 */
export const sanitizeLine: (text: string) => string = singleLine;

/**
 * Makes untrusted multi-line text safe to print: escape sequences and control
 * characters removed, line breaks and tabs kept.
 *
 * @param text Untrusted text.
 * @returns Printable text.
 */
export function sanitizeText(text: string): string {
  return stripControlCharacters(text);
}

/**
 * Formats a value as pretty JSON with a final newline, for `--json` output.
 * JSON escapes control characters, so the result is terminal-safe.
 *
 * @param value Any JSON-compatible value.
 * @returns The JSON text.
 */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}
