/**
 * Everything the commands print goes through here: one sink per stream, and
 * sanitizing of untrusted text before it reaches a terminal.
 *
 * @module
 */

import {
  hasControlCharacters,
  singleLine,
  stripControlCharacters,
} from "../conversation/control_chars.ts";
import { redactSecrets } from "./redact.ts";

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
  /** The terminal's width when standard output is a terminal. */
  readonly columns?: number;
  /** The terminal's width when standard error is a terminal (live progress). */
  readonly stderrColumns?: number;
  /** Reads all of standard input. */
  readStdin(): Promise<string>;
}

const encoder = new TextEncoder();

/**
 * The process's own standard streams. Everything written is redacted of the
 * given secrets and URL passwords; standard output also loses any escape
 * sequence or control character but jpt's own colours (a safety net:
 * commands sanitize what they print before they style it).
 *
 * @param secrets Values never to print (see {@linkcode secretsOf}).
 * @returns An {@linkcode Io} writing to stdout and stderr.
 */
export function processIo(secrets: readonly string[] = []): Io {
  const out = closable(Deno.stdout);
  const err = closable(Deno.stderr);
  return {
    out: (text) =>
      out(encoder.encode(keepingColors(redactSecrets(text, secrets)))),
    err: (text) => err(encoder.encode(redactSecrets(text, secrets))),
    stdoutIsTerminal: Deno.stdout.isTerminal(),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    stdinIsTerminal: Deno.stdin.isTerminal(),
    ...terminalColumns(),
    readStdin: () => readAllText(Deno.stdin),
  };
}

/**
 * Everything a reader gives until its end, decoded as UTF-8 (a leading BOM
 * dropped, bad bytes replaced). Read chunk by chunk: wrapping standard
 * input's stream in a `Response` costs about 5 ms of set-up on first use,
 * on `jpt query`'s path to its request.
 *
 * @param reader The reader (standard input).
 * @returns Its text.
 */
export async function readAllText(
  reader: { read(into: Uint8Array): Promise<number | null> },
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const chunk = new Uint8Array(64 * 1024);
    const read = await reader.read(chunk);
    if (read === null) break;
    chunks.push(chunk.subarray(0, read));
    length += read;
  }
  const all = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(all);
}

/** jpt's own colours (SGR sequences) on standard output. */
// deno-lint-ignore no-control-regex -- the escape character is the point
const SGR = /(\u001b\[[0-9;]*m)/;

/** The stdout safety net: every control sequence but jpt's own colours removed. */
function keepingColors(text: string): string {
  // Text without colours has nothing to keep: one native scan each says
  // whether there is anything to remove.
  if (!hasControlCharacters(text) && !text.includes("\r")) return text;
  return text.split(SGR).map((part, i) =>
    i % 2 === 1 ? part : sanitizeText(part)
  )
    .join("");
}

/** The width assumed where a terminal reports none. */
const FALLBACK_COLUMNS = 80;

function terminalColumns(): { columns?: number; stderrColumns?: number } {
  const stdout = Deno.stdout.isTerminal();
  const stderr = Deno.stderr.isTerminal();
  if (!stdout && !stderr) return {};
  try {
    // A pty that reports 0 columns (a detached tmux, some CI runners)
    // gets a classic terminal's width.
    const columns = Deno.consoleSize().columns || FALLBACK_COLUMNS;
    return {
      ...(stdout ? { columns } : {}),
      ...(stderr ? { stderrColumns: columns } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * A writer for a standard stream that stops writing, silently, once the
 * reader went away (`jpt query … | head -c5`): the command goes on and still
 * stores what it was doing.
 */
function closable(
  stream: typeof Deno.stdout,
): (bytes: Uint8Array) => void {
  let closed = false;
  return (bytes) => {
    if (closed) return;
    try {
      let written = 0;
      while (written < bytes.length) {
        written += stream.writeSync(bytes.subarray(written));
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
      closed = true;
    }
  };
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
 * Makes untrusted multi-line text safe to print: escape sequences, control
 * characters and carriage returns (which move the cursor back over what was
 * printed) removed; line feeds and tabs kept.
 *
 * @param text Untrusted text.
 * @returns Printable text.
 */
export function sanitizeText(text: string): string {
  return stripControlCharacters(text).replaceAll("\r", "");
}

/**
 * Streams that are not a terminal and keep what is written to standard
 * output (for running the command line in-process: a command's help, the
 * command tree).
 *
 * @param out Receives standard output (default: dropped).
 * @returns The streams; standard error is dropped.
 */
export function quietIo(out: (text: string) => void = () => {}): Io {
  return {
    out,
    err: () => {},
    stdoutIsTerminal: false,
    stderrIsTerminal: false,
    stdinIsTerminal: false,
    readStdin: () => Promise.resolve(""),
  };
}

/** What JSON.stringify leaves raw but a terminal acts on: DEL, C1 controls, line/paragraph separators, bidi overrides and isolates. */
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Formats a value as pretty JSON with a final newline, for `--json` output.
 * JSON.stringify escapes C0 controls and lone surrogates; DEL, C1 controls,
 * U+2028/2029 and bidirectional overrides are escaped here too, so the
 * result is terminal-safe and still the same JSON value.
 *
 * @param value Any JSON-compatible value.
 * @returns The JSON text.
 */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    JSON_UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  ) + "\n";
}
