/**
 * Runs the real entry point (`main.ts`) in a child process and captures what
 * it prints, as a user would see it.
 *
 * @module
 */

import { join } from "node:path";
import { JPT_ENTRY } from "./paths.ts";

/**
 * jpt's data (the label store) and config for runs that name none, private
 * to this test process: a test never reads or writes the developer's own;
 * and no detached worker unless a test asks for one.
 */
export const ISOLATED: Record<string, string> = (() => {
  const dir = Deno.makeTempDirSync({ prefix: "jpt-test-home-" });
  // Removed when the test process ends: no test leaves a folder behind.
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // Already gone.
    }
  });
  return {
    JPT_DATA_DIR: join(dir, "data"),
    JPT_CONFIG_DIR: join(dir, "config"),
    // Tests wait for background work in the query (the drain), unless they
    // test the detached worker and say so: no worker outlives a test.
    JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_DETACH: "false",
    // A 5xx answer is final unless a test of retries sets a count.
    JPT_MODEL_RETRIES: "0",
  };
})();

/**
 * The environment jpt runs with in tests: only what Deno itself needs is
 * inherited (so the developer's own jp config, keys and `JP_CFG_*`
 * variables never reach the tests), plus {@linkcode ISOLATED}.
 *
 * @param extra More variables.
 * @returns The variables.
 */
export function jptEnv(
  extra: Record<string, string> = {},
): Record<string, string> {
  return { ...inherited(), ...ISOLATED, NO_COLOR: "1", TZ: "UTC", ...extra };
}

/** What a CLI run produced. */
export interface CliResult {
  /** Exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

/** Options for {@linkcode runJpt}. */
export interface RunJptOptions {
  /** Working directory. */
  cwd?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Run this file instead of `main.ts` (the bundle). */
  entry?: string;
  /** Text piped to standard input. */
  stdin?: string;
}

/**
 * Runs `deno run -A main.ts ...args`.
 *
 * @param args The jpt arguments.
 * @param options Working directory, environment, entry file.
 * @returns Exit code and output.
 */
export async function runJpt(
  args: string[],
  options: RunJptOptions = {},
): Promise<CliResult> {
  const command = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", options.entry ?? JPT_ENTRY, ...args],
    cwd: options.cwd ?? Deno.cwd(),
    clearEnv: true,
    env: jptEnv(options.env),
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = command.spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

function inherited(): Record<string, string> {
  const names = [
    "PATH",
    "HOME",
    "DENO_DIR",
    "TMPDIR",
    "XDG_CACHE_HOME",
    "SYSTEMROOT",
    "USERPROFILE",
    "LOCALAPPDATA",
  ];
  return Object.fromEntries(names.flatMap((name) => {
    const value = Deno.env.get(name);
    return value === undefined ? [] : [[name, value]];
  }));
}

/**
 * Starts `main.ts` without waiting, for tests that signal the process.
 *
 * @param args The jpt arguments.
 * @param options Working directory and environment.
 * @returns The child process, with piped stdout and stderr.
 */
export function spawnJpt(
  args: string[],
  options: RunJptOptions = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", options.entry ?? JPT_ENTRY, ...args],
    cwd: options.cwd ?? Deno.cwd(),
    clearEnv: true,
    env: jptEnv(options.env),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
