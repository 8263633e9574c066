/**
 * `jpt watch` over a long run: a jp emulator makes N changes (a turn each,
 * under jp's lock, re-saved as released jp does) while one watcher labels
 * them; the watcher's resident memory is read along the way, and its CPU
 * use over 10 s of idleness afterwards (Linux `/proc`).
 *
 * @module
 */

import { join } from "node:path";
import { FakeLlm, summaryResponder } from "../tests/support/fake_llm.ts";
import { writeConversation } from "../tests/support/workspace.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** What one watch run measured. */
export interface WatchRow {
  /** Changes made by the emulator. */
  changes: number;
  /** Resident memory (MB) after the initial catch-up, and after each quarter of the changes. */
  rssMb: number[];
  /** CPU time (ms) the watcher used over the idle window. */
  idleCpuMs: number;
  /** The idle window (s). */
  idleSeconds: number;
  /** Wall time of the emulated changes (s). */
  seconds: number;
}

/**
 * A process's resident memory (Linux `/proc`).
 *
 * @param pid The process.
 * @returns Megabytes.
 */
export function rssMb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * The CPU time a process used so far, user and system (Linux `/proc`).
 *
 * @param pid The process.
 * @returns Milliseconds.
 */
export function cpuMs(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!
    .split(" ");
  // utime and stime, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * A workspace in `base` whose model is the loopback server at `serverUrl`,
 * holding one conversation (`jp-c17800000000`) of `events`, with jp's locks
 * directory.
 *
 * @param base The workspace root.
 * @param serverUrl The model server.
 * @param events The conversation's `events.json`.
 * @returns The conversation's directory.
 */
export async function watchedConversation(
  base: string,
  serverUrl: string,
  events: Uint8Array,
): Promise<string> {
  const conversation = await writeConversation(
    join(base, ".jp", "conversations"),
    "17800000000",
    events,
  );
  await Deno.mkdir(join(base, ".jp", "locks"));
  await Deno.writeTextFile(
    join(base, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${serverUrl}"\n`,
  );
  await Deno.writeTextFile(join(conversation, "base_config.json"), "{}\n");
  return conversation;
}

/**
 * Starts `jpt watch` in a workspace, its user and data directories inside it.
 *
 * @param base The workspace root.
 * @param entry The main module (default this checkout's).
 * @returns The watcher.
 */
export function startWatcher(
  base: string,
  entry: string = join(ROOT, "main.ts"),
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", entry, "watch"],
    cwd: base,
    env: {
      JP_USER_DATA_DIR: join(base, "user"),
      JPT_DATA_DIR: join(base, "jpt-data"),
      NO_COLOR: "1",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
}

/**
 * Runs the jp emulator (tests/support/jp_emulator.ts) on the conversation,
 * under jp's lock, to its end.
 *
 * @param base The workspace root.
 * @param conversation The conversation's directory.
 * @param args The emulator's arguments after the lock (hold, count, mode).
 */
export async function runJpEmulator(
  base: string,
  conversation: string,
  args: string[],
): Promise<void> {
  await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      join(ROOT, "tests", "support", "jp_emulator.ts"),
      conversation,
      join(base, ".jp", "locks", "jp-c17800000000.lock"),
      ...args,
    ],
    stdout: "null",
  }).output();
}

/**
 * Runs the watcher against N emulated changes.
 *
 * @param changes How many turns the emulator adds.
 * @param idleSeconds How long to watch the idle CPU afterwards.
 * @returns The measurements.
 */
export async function watchRun(
  changes: number,
  idleSeconds: number,
): Promise<WatchRow> {
  await using server = FakeLlm.start(summaryResponder());
  const base = await Deno.makeTempDir({ prefix: "jpt-bench-watch-" });
  try {
    const conversation = await watchedConversation(
      base,
      server.url,
      new TextEncoder().encode("[]\n"),
    );
    const watcher = startWatcher(base);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const rss = [rssMb(watcher.pid)];
    const started = performance.now();
    const quarter = Math.ceil(changes / 4);
    for (let done = 0; done < changes; done += quarter) {
      await runJpEmulator(base, conversation, [
        "1",
        String(Math.min(quarter, changes - done)),
      ]);
      rss.push(rssMb(watcher.pid));
    }
    const seconds = (performance.now() - started) / 1000;
    // Let the last changes settle, then measure an idle window.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const before = cpuMs(watcher.pid);
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const idleCpuMs = cpuMs(watcher.pid) - before;
    watcher.kill("SIGTERM");
    await watcher.status;
    return { changes, rssMb: rss, idleCpuMs, idleSeconds, seconds };
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

if (import.meta.main) {
  console.log(await watchRun(Number(Deno.args[0] ?? 200), 5));
}
