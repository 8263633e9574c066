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
    const conversation = join(base, ".jp", "conversations", "17800000000");
    await Deno.mkdir(conversation, { recursive: true });
    await Deno.mkdir(join(base, ".jp", "locks"));
    await Deno.writeTextFile(
      join(base, ".jp", "config.toml"),
      `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
    );
    await Deno.writeTextFile(join(conversation, "events.json"), "[]\n");
    await Deno.writeTextFile(join(conversation, "base_config.json"), "{}\n");
    await Deno.writeTextFile(
      join(conversation, "metadata.json"),
      '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
    );
    const watcher = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), "watch"],
      cwd: base,
      env: {
        JP_USER_DATA_DIR: join(base, "user"),
        JPT_DATA_DIR: join(base, "jpt-data"),
        NO_COLOR: "1",
      },
      stdout: "null",
      stderr: "null",
    }).spawn();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const rss = [rssMb(watcher.pid)];
    const started = performance.now();
    const quarter = Math.ceil(changes / 4);
    for (let done = 0; done < changes; done += quarter) {
      await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--quiet",
          join(ROOT, "tests", "support", "jp_emulator.ts"),
          conversation,
          join(base, ".jp", "locks", "jp-c17800000000.lock"),
          "1",
          String(Math.min(quarter, changes - done)),
        ],
        stdout: "null",
      }).output();
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
