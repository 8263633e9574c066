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

/**
 * The value after an option on the script's command line (`--runs 11`).
 *
 * @param name The option.
 * @returns Its value, or `undefined` when it is not given.
 */
export function optionValue(name: string): string | undefined {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Deno.args[at + 1] : undefined;
}

/**
 * `--before DIR`: another checkout's `main.ts`, measured beside this one.
 *
 * @returns Its path, or `undefined` when not given.
 */
export function beforeMain(): string | undefined {
  const dir = optionValue("--before");
  return dir === undefined ? undefined : join(dir, "main.ts");
}

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

/** What {@linkcode sideBySide} measured. */
export interface SideBySide {
  /** Each contender's median (ms). */
  median: Record<string, number>;
  /** A contender's median over another's, with the spread of the rounds' ratios. */
  ratio(name: string, base: string): string;
}

/**
 * Runs contenders alternately, round by round, so drift on the machine
 * charges all of them alike.
 *
 * @param contenders Each one's run, returning its wall time (ms).
 * @param rounds How many rounds.
 * @returns The medians, and ratios with their spread.
 */
export async function sideBySide(
  contenders: Record<string, () => Promise<number>>,
  rounds: number,
): Promise<SideBySide> {
  const times: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(contenders)) {
      (times[name] ??= []).push(await run());
    }
  }
  const medians = Object.fromEntries(
    Object.entries(times).map(([name, values]) => [name, median(values)]),
  );
  return {
    median: medians,
    ratio(name, base) {
      const values = times[name]!.map((t, i) => t / times[base]![i]!)
        .sort((a, b) => a - b);
      return `${(medians[name]! / medians[base]!).toFixed(2)}× (${
        values[0]!.toFixed(2)
      }–${values.at(-1)!.toFixed(2)})`;
    },
  };
}

/**
 * Runs a command to its end, its output dropped; throws with its standard
 * error when it fails.
 *
 * @param command The program and its arguments.
 * @param cwd The working directory.
 * @param env Its environment variables (added to this process's).
 * @returns When it started (`performance.now()`).
 */
export async function runToEnd(
  command: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command(command[0]!, {
    args: command.slice(1),
    cwd,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return started;
}

/**
 * Wall time of one `deno run -A` of a script in a fresh process (no colour,
 * the data directory inside `cwd`); throws with its stderr when it fails.
 *
 * @param args The script and its arguments.
 * @param cwd The working directory.
 * @returns Milliseconds.
 */
export async function timedDeno(args: string[], cwd: string): Promise<number> {
  const started = await runToEnd(
    [Deno.execPath(), "run", "-A", "--quiet", ...args],
    cwd,
    { NO_COLOR: "1", JPT_DATA_DIR: `${cwd}/data` },
  );
  return performance.now() - started;
}

/**
 * The first line a process prints (a server's address or port), trimmed;
 * the rest of its output is left unread.
 *
 * @param child The process, its standard output piped.
 * @returns The line.
 * @throws {Error} When the output ends before a line.
 */
export async function firstLine(child: Deno.ChildProcess): Promise<string> {
  const reader = child.stdout.pipeThrough(
    new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
  ).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the process ended before a line: ${text}`);
    text += value;
  }
  reader.releaseLock();
  return text.split("\n")[0]!.trim();
}

/**
 * What the floor of a row is made of, each run side by side with its
 * contenders: a Deno hello world (the runtime's own start-up), and jpt
 * running the same command on a one-turn workspace (its start-up and
 * command path, with no data to speak of).
 *
 * @param root Where to write the hello world script.
 * @param jptOnOneTurn Runs the row's jpt command on a one-turn workspace.
 * @returns The two contenders, named `hello` and `start`.
 */
export async function floorContenders(
  root: string,
  jptOnOneTurn: () => Promise<number>,
): Promise<Record<string, () => Promise<number>>> {
  const hello = join(root, "hello.ts");
  await Deno.writeTextFile(hello, 'console.log("hello");\n');
  return { hello: () => timedDeno([hello], root), start: jptOnOneTurn };
}

/**
 * The floor of a row against its baseline, as a row prints it: jpt's
 * start-up beyond the runtime's (`start - hello`) plus what the platform
 * alone takes for the row's work (`work`: the baseline itself, or a script
 * doing only what the command must), over the baseline.
 *
 * @param median The contenders' medians (`hello`, `start`, the work and the base).
 * @param work The contender that does only the work the command must.
 * @param base The row's baseline.
 * @returns E.g. `floor 1.33×: start-up 20 ms beyond a hello world's 17`.
 */
export function floorText(
  median: Record<string, number>,
  work: string,
  base: string,
): string {
  const startUp = median.start! - median.hello!;
  const floor = (startUp + median[work]!) / median[base]!;
  return `floor ${floor.toFixed(2)}×: start-up ${
    startUp.toFixed(0)
  } ms beyond a hello world's ${median.hello!.toFixed(0)}`;
}
