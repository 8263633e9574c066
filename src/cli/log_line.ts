/**
 * Where a run's log lines go, as jp's `-v`, `-q` and `--log-file` say:
 * standard error with `-v` or `--log-file -`, the file `--log-file PATH`
 * names (created afresh for the run, as jp creates its), nowhere otherwise;
 * `-q` keeps standard error silent whatever else is asked.
 *
 * @module
 */

import { sanitizeLine } from "./output.ts";

/**
 * A log-line writer for a run.
 *
 * @param options `-v`, `-q`, `--log-file`, and how to write standard error.
 * @returns The writer (lines are sanitized; a file that cannot be written
 *   is given up on, never stopping the command).
 */
export function logLineWriter(options: {
  verbose: boolean;
  quiet: boolean;
  logFile: string | undefined;
  err: (text: string) => void;
}): (line: string) => void {
  const { logFile } = options;
  if (logFile !== undefined && logFile !== "-") {
    let file: Deno.FsFile | undefined | null;
    const encoder = new TextEncoder();
    return (line) => {
      if (file === null) return;
      try {
        file ??= Deno.openSync(logFile, {
          write: true,
          create: true,
          truncate: true,
        });
        file.writeSync(encoder.encode(`${sanitizeLine(line)}\n`));
      } catch {
        file = null;
      }
    };
  }
  if (options.quiet || !(options.verbose || logFile === "-")) return () => {};
  return (line) => options.err(`${sanitizeLine(line)}\n`);
}
