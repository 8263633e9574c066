/**
 * What every row of the adversarial study shares: the tally of outcomes,
 * running the jpt under test (this checkout's `main.ts`, or another
 * checkout's with `--entry`) in a trial folder that holds every user
 * directory, the judge of a run, and the workspaces the rows start from.
 *
 * @module
 */

import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { testdata } from "../../tests/support/paths.ts";

/** How a run ended. "ok" and "clear error" are the acceptable ones. */
export type Outcome = "ok" | "clear error" | "crash" | "lost" | "hang";

/** How long a run may take before it counts as a hang. */
export const HANG_MS = 20_000;

/** One row's counts. */
export interface Tally {
  /** Runs tried. */
  tried: number;
  /** Runs by outcome. */
  counts: Record<Outcome, number>;
  /** Kill trials whose kill landed inside the phase the row names. */
  landed: number;
  /** Whether the row kills processes (its `landed` count means something). */
  kills: boolean;
  /** The first examples of each bad outcome. */
  examples: string[];
}

/** The rows' tallies, in the order rows were first recorded. */
export class Tallies {
  readonly #rows = new Map<string, Tally>();

  /**
   * Records one run.
   *
   * @param row The row (category).
   * @param outcome How it ended.
   * @param example What it was, shown when the outcome is bad.
   * @param landed For a kill trial: whether the kill landed in its phase.
   */
  record(
    row: string,
    outcome: Outcome,
    example: string,
    landed?: boolean,
  ): void {
    const tally = this.#rows.get(row) ?? {
      tried: 0,
      counts: { ok: 0, "clear error": 0, crash: 0, lost: 0, hang: 0 },
      landed: 0,
      kills: landed !== undefined,
      examples: [],
    };
    tally.tried++;
    tally.counts[outcome]++;
    if (landed) tally.landed++;
    if (
      (outcome === "crash" || outcome === "lost" || outcome === "hang") &&
      tally.examples.length < 5
    ) {
      tally.examples.push(example.replaceAll("\n", " "));
    }
    this.#rows.set(row, tally);
  }

  /** Lines printed under the table (what a row found beyond its counts). */
  readonly notes: string[] = [];

  /** Every row, in order. */
  entries(): Array<[string, Tally]> {
    return [...this.#rows];
  }

  /**
   * Whether any run of any row ended badly, or (when `landing` is asked for)
   * a kill trial missed its phase.
   *
   * @param landing Also fail on a kill that missed its phase.
   * @returns Whether the study failed.
   */
  failed(landing: boolean): boolean {
    return this.entries().some(([, t]) =>
      t.counts.crash + t.counts.lost + t.counts.hang > 0 ||
      (landing && t.kills && t.landed < t.tried)
    );
  }
}

/** A run's exit and output. */
export interface Run {
  /** The exit code, or `hang` when it was killed at the bound. */
  code: number | "hang";
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
  /** Wall time (ms). */
  ms: number;
}

/** What a row is given. */
export interface Study {
  /** The entry under test (a `main.ts`). */
  entry: string;
  /** A short run. */
  quick: boolean;
  /** The tallies to record into. */
  tallies: Tallies;
}

/**
 * The user directories of a trial, all inside its own folder: the harness
 * never reads or writes the caller's own (label records, leases, the worker
 * log, jp's and jpt's user config). Deno's cache is left where it is.
 *
 * @param root The trial's folder.
 * @returns The variables.
 */
export function isolated(root: string): Record<string, string> {
  return {
    JP_GLOBAL_CONFIG_DIR: join(root, ".no-global"),
    JP_USER_DATA_DIR: join(root, ".no-user-data"),
    JPT_DATA_DIR: join(root, ".jpt-data"),
    JPT_CONFIG_DIR: join(root, ".jpt-config"),
    JPT_CACHE_DIR: join(root, ".cache"),
    XDG_DATA_HOME: join(root, ".xdg-data"),
    XDG_CONFIG_HOME: join(root, ".xdg-config"),
  };
}

/**
 * Starts the jpt under test with a clean environment: the trial's user
 * directories, no colour, and `env`.
 *
 * @param study The study (its entry).
 * @param args jpt's arguments.
 * @param cwd The working directory (the trial's folder, or inside it).
 * @param env More variables.
 * @param root The trial's folder, when `cwd` is below it.
 * @returns The child, its standard streams piped (input closed).
 */
export function spawnJpt(
  study: Study,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  root: string = cwd,
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", study.entry, ...args],
    cwd,
    clearEnv: true,
    env: {
      ...reachingTheRegistry(),
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
      NO_COLOR: "1",
      ...isolated(root),
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/**
 * The caller's variables Deno needs to fetch packages for an older
 * checkout (its cache, proxies, certificates); never a key or a token.
 */
function reachingTheRegistry(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) =>
      /^DENO_(DIR|CERT|TLS_CA_STORE)$|PROXY$|^SSL_CERT_(FILE|DIR)$|^NODE_EXTRA_CA_CERTS$/i
        .test(name)
    ),
  );
}

/**
 * Runs the jpt under test to its end, killing it at `hangMs`.
 *
 * @param study The study.
 * @param args jpt's arguments.
 * @param cwd The working directory.
 * @param env More variables.
 * @param hangMs The bound (default {@linkcode HANG_MS}).
 * @returns How it ended.
 */
export async function runJpt(
  study: Study,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  hangMs: number = HANG_MS,
): Promise<Run> {
  const started = performance.now();
  const child = spawnJpt(study, args, cwd, env);
  const timer = setTimeout(() => child.kill("SIGKILL"), hangMs);
  const output = await child.output();
  clearTimeout(timer);
  const decoder = new TextDecoder();
  return {
    code: output.signal === "SIGKILL" ? "hang" : output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
    ms: performance.now() - started,
  };
}

/**
 * ok / clear error / crash / hang for a run (files are judged by the row).
 *
 * @param run The run.
 * @returns Its outcome.
 */
export function judge(run: Run): Outcome {
  if (run.code === "hang") return "hang";
  // An internal error in clear clothes is still a crash.
  if (
    /--verbose for details|Maximum call stack|\n\s+at |Cannot read properties|is not a function|TypeError|ReferenceError|Uncaught/
      .test(run.stderr)
  ) {
    return "crash";
  }
  if (run.code === 0) return "ok";
  if (run.code === 1 || run.code === 2) return "clear error";
  return "crash";
}

/** The sample conversation every single-conversation trial starts from. */
const SEED_CONVERSATION = testdata(
  "workspace",
  ".jp",
  "conversations",
  "17800000000-add-retry-backoff-to-the-stream-handler",
);

/** The sample conversation's `events.json` text. */
export function seedEvents(): Promise<string> {
  return Deno.readTextFile(join(SEED_CONVERSATION, "events.json"));
}

/**
 * A trial folder holding a workspace with the sample conversation
 * (`17800000000`).
 *
 * @returns The folder (the workspace root) and the conversation's directory.
 */
export async function sampleWorkspace(): Promise<
  { root: string; dir: string }
> {
  const root = await Deno.makeTempDir({ prefix: "jpt-adversarial-" });
  const dir = join(root, ".jp", "conversations", "17800000000");
  await Deno.mkdir(dir, { recursive: true });
  for (const name of ["events.json", "metadata.json", "base_config.json"]) {
    await Deno.copyFile(join(SEED_CONVERSATION, name), join(dir, name));
  }
  await Deno.writeTextFile(
    join(root, ".jp", ".id"),
    "DO NOT EDIT THIS FILE! IT IS AUTO-GENERATED BY JP.\nadver\n",
  );
  return { root, dir };
}

/**
 * A trial folder holding a workspace of `count` conversations of `turns`
 * unlabelled turns each (three unless said; ids `17800001000` on), with
 * `ollama/tiny` as the model in `.jp/config.toml`.
 *
 * @param count How many conversations.
 * @param turns Turns in each.
 * @returns The folder and the conversations' directories.
 */
export async function manyConversations(
  count: number,
  turns = 3,
): Promise<{ root: string; dirs: string[] }> {
  const root = await Deno.makeTempDir({ prefix: "jpt-adversarial-" });
  await Deno.mkdir(join(root, ".jp"), { recursive: true });
  await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nadver\n");
  // A model for every role (rows give its server with --cfg or rewrite this).
  await Deno.writeTextFile(
    join(root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n`,
  );
  const dirs: string[] = [];
  for (let c = 0; c < count; c++) {
    const dir = join(root, ".jp", "conversations", `1780000${1000 + c}`);
    await Deno.mkdir(dir, { recursive: true });
    const entries = Array.from({ length: turns }, (_, t) => t).flatMap((t) => [
      { timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
      {
        timestamp: "2026-01-01 00:00:00.1",
        type: "chat_request",
        content: `question ${t} of ${c}`,
      },
      {
        timestamp: "2026-01-01 00:00:00.2",
        type: "chat_response",
        message: `answer ${t}`,
      },
    ]);
    await Deno.writeTextFile(
      join(dir, "events.json"),
      JSON.stringify(entries, null, 2) + "\n",
    );
    await Deno.writeTextFile(
      join(dir, "metadata.json"),
      '{\n  "last_activated_at": "2026-01-01 00:00:00.2"\n}\n',
    );
    dirs.push(dir);
  }
  return { root, dirs };
}

/**
 * The files of a directory (its top level) and their texts.
 *
 * @param dir The directory.
 * @returns Name → text.
 */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const item of Deno.readDir(dir)) {
    if (item.isFile) {
      files.set(item.name, await Deno.readTextFile(join(dir, item.name)));
    }
  }
  return files;
}

/** Whether two snapshots hold the same files with the same texts. */
export function same(
  a: Map<string, string>,
  b: Map<string, string>,
): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/**
 * Deterministic pseudo-random numbers, so a rerun tries the same inputs.
 *
 * @param seed The seed.
 * @returns The next number in [0, 1).
 */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/**
 * Every entry of a conversation but its turn_starts, as text: what jpt must
 * never lose; `undefined` when a file is torn or invalid.
 *
 * @param dir The conversation's directory.
 * @returns The entries' texts.
 */
export async function contentOf(dir: string): Promise<string[] | undefined> {
  try {
    const stream = ConversationStream.parse(
      await Deno.readFile(join(dir, "events.json")),
    );
    JSON.parse(await Deno.readTextFile(join(dir, "metadata.json")));
    return stream.entries.filter((entry) => entry.type !== "turn_start").map((
      entry,
    ) => entry.text.replace(/"event_id"\s*:\s*"[^"]*"\s*,?\s*/, ""));
  } catch {
    return undefined;
  }
}

/**
 * The summaries of a conversation's turns (`undefined` for a turn without).
 *
 * @param dir The conversation's directory.
 * @returns One per turn.
 */
export async function summariesOf(
  dir: string,
): Promise<Array<string | undefined>> {
  return ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  ).turns().map((turn) => turn.summary);
}

/** Waits `ms`. */
export const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Removes a trial's folder, after ending the processes a trial left working
 * in it (a detached worker a `jpt query` started outlives the query).
 */
export { removeTree as removeTrial } from "../run_jpt.ts";
