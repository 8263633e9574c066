/**
 * Pseudo-terminals for tests, through util-linux `script` (absent on macOS
 * and Windows runners, where those tests are skipped with one line).
 *
 * @module
 */

import { ISOLATED } from "./cli.ts";
import { JPT_ENTRY } from "./paths.ts";

/** util-linux `script`, found on this process's PATH (a test may give jpt another). */
const SCRIPT: string = (Deno.env.get("PATH") ?? "").split(":")
  .map((dir) => `${dir}/script`)
  .find((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  }) ?? "script";

/** How long a command in a pseudo-terminal may run before it is killed. */
const PTY_TIMEOUT_MS = 60_000;

/** Whether util-linux `script` (with `-q -e -c`) can run here. */
export const HAS_SCRIPT: boolean = (() => {
  try {
    const output = new Deno.Command(SCRIPT, {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    return output.success &&
      new TextDecoder().decode(output.stdout).includes("util-linux");
  } catch {
    return false;
  }
})();

if (!HAS_SCRIPT) {
  console.log(
    "SKIP: util-linux `script` not found; tests through a pseudo-terminal are skipped",
  );
}

/**
 * Runs a shell command line in a pseudo-terminal (stdin, stdout and stderr
 * are all the terminal) and returns everything it printed.
 *
 * @param commandLine The shell command (`jpt …` runs the entry point under
 *   test, or `options.program` when given).
 * @param options Working directory, environment (`PATH` among it, to replace
 *   the caller's), terminal width, and the program `jpt` stands for.
 * @returns The exit code and the terminal's output (with `\r\n` line ends).
 */
export async function runInPty(
  commandLine: string,
  options: PtyOptions,
): Promise<{ code: number; output: string }> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), PTY_TIMEOUT_MS);
  const result = await ptyCommand(commandLine, options, stop.signal, "null")
    .output().finally(() => clearTimeout(timer));
  return {
    code: result.code,
    output: new TextDecoder().decode(result.stdout),
  };
}

/** Where and how a command line runs in a pseudo-terminal. */
export interface PtyOptions {
  /** The working directory. */
  cwd: string;
  /** More variables (`PATH` among them replaces the caller's). */
  env: Record<string, string>;
  /** The terminal's width (default 100). */
  columns?: number;
  /** The program `jpt` stands for (default: the entry point under test). */
  program?: string;
}

/**
 * Runs a command line in a pseudo-terminal and types into it: each step
 * waits until the terminal's output (escape sequences and carriage returns
 * removed) matches
 * `when`, then sends `keys` (`\r` is Enter, `\u001b[B` the down arrow).
 *
 * @param commandLine The shell command, as for {@linkcode runInPty}.
 * @param steps What to wait for and what to type, in order.
 * @param options As for {@linkcode runInPty}.
 * @returns The exit code and everything the terminal showed.
 */
export async function typeInPty(
  commandLine: string,
  steps: ReadonlyArray<{ when: RegExp; keys: string }>,
  options: PtyOptions,
): Promise<{ code: number; output: string }> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), PTY_TIMEOUT_MS);
  const child = ptyCommand(commandLine, options, stop.signal, "piped").spawn();
  const writer = child.stdin.getWriter();
  let output = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      output += decoder.decode(chunk, { stream: true });
    }
  })();
  const plain = () =>
    // deno-lint-ignore no-control-regex -- escape sequences are removed
    output.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b[()][A-Z0-9]|\r/g, "");
  try {
    for (const step of steps) {
      while (!step.when.test(plain())) {
        if (stop.signal.aborted) throw new Error(`never showed ${step.when}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await writer.write(new TextEncoder().encode(step.keys));
    }
    const status = await child.status;
    await reading;
    return { code: status.code, output };
  } finally {
    clearTimeout(timer);
    await writer.close().catch(() => {});
    await child.stderr.cancel().catch(() => {});
  }
}

function ptyCommand(
  commandLine: string,
  options: PtyOptions,
  signal: AbortSignal,
  stdin: "null" | "piped",
): Deno.Command {
  const jpt = options.program === undefined
    ? `'${Deno.execPath()}' run -A --quiet '${JPT_ENTRY}'`
    : `'${options.program}'`;
  const line = `stty cols ${options.columns ?? 100} rows 40; ${
    commandLine.replaceAll("jpt ", `${jpt} `)
  }`;
  return new Deno.Command(SCRIPT, {
    args: ["-qec", line, "/dev/null"],
    cwd: options.cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
      ...(Deno.env.get("DENO_DIR")
        ? { DENO_DIR: Deno.env.get("DENO_DIR")! }
        : {}),
      ...ISOLATED,
      TERM: "xterm-256color",
      TZ: "UTC",
      ...options.env,
    },
    stdin,
    stdout: "piped",
    stderr: "piped",
    // A command that waits for a keyboard (a pager, a prompt) fails the test
    // instead of hanging the suite.
    signal,
  });
}
