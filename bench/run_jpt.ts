/**
 * What the benchmarks share: running jpt as a user would (a fresh process
 * from the sources, no colour, no standard input), and the median.
 *
 * @module
 */

import { join } from "node:path";
import { endProcessesInside } from "../tests/support/leftover_processes.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** jpt's entry point in this checkout. */
export const MAIN = join(ROOT, "main.ts");

/** When a jpt process started and exited (`performance.now()` ms). */
export interface JptRun {
  /** Just before the process was spawned. */
  started: number;
  /** When its output was read to the end and it had exited. */
  exitedAt: number;
  /** `exitedAt - started`. */
  wall: number;
  /** What it printed on standard output. */
  stdout: string;
}

/**
 * Runs jpt and times it; a failing run throws with its stderr.
 *
 * @param args The arguments after `jpt`.
 * @param options Working directory (default the checkout), extra
 *   environment, another entry file (a bundle, another checkout's `main.ts`).
 * @returns Its timing.
 */
export async function runJpt(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; entry?: string } = {},
): Promise<JptRun> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", options.entry ?? MAIN, ...args],
    cwd: options.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const exitedAt = performance.now();
  if (!output.success) {
    throw new Error(
      `jpt ${args.join(" ")} failed: ${
        new TextDecoder().decode(output.stderr)
      }`,
    );
  }
  return {
    started,
    exitedAt,
    wall: exitedAt - started,
    stdout: new TextDecoder().decode(output.stdout),
  };
}

/** Median of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Removes a directory tree: first ends the processes still working in it (a
 * detached worker a query started), then removes it, retrying for a while
 * when a process that is still finishing adds to it during the removal.
 *
 * @param path The directory.
 */
export async function removeTree(path: string): Promise<void> {
  await endProcessesInside(await Deno.realPath(path).catch(() => path));
  for (let attempt = 1;; attempt++) {
    try {
      return await Deno.remove(path, { recursive: true });
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
