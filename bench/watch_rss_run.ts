/**
 * `jpt watch`'s resident memory over many saves of one conversation of
 * 1,000 turns: the watcher labels its turns, then a jp emulator re-saves
 * the file as released jp does (every summary and id dropped, nothing
 * else changed) N times, each save once the watcher has put the labels
 * back after the one before (so the watcher handles every save: saves
 * closer together than its 300 ms wait for quiet are handled as one). Its
 * resident memory (Linux `/proc`) after the 2nd save and at checkpoints up
 * to the last (2, 10, 30, 100, …), against the 2nd; then once more after
 * the watcher has been idle for 40 s (as between a user's turns, when the
 * runtime may return memory the saves used).
 *
 * `deno run -A bench/watch_rss_run.ts [SAVES] [--entry FILE]` (default
 * 1,000 saves, this checkout's `main.ts`) prints the row.
 *
 * @module
 */

import { join } from "node:path";
import { FakeLlm, summaryResponder } from "../tests/support/fake_llm.ts";
import { generateConversation } from "./generate.ts";
import {
  rssMb,
  runJpEmulator,
  startWatcher,
  watchedConversation,
} from "./watch_run.ts";
import { optionValue, removeTree } from "./run_jpt.ts";

const SAVES = Number(Deno.args.find((arg) => /^\d+$/.test(arg)) ?? 1000);
/** `--entry FILE`: another checkout's `main.ts` to run (default this one's). */
const ENTRY = optionValue("--entry");
const TURNS = 1000;
/** How long the watcher is left idle before the last look. */
const IDLE_MS = 40_000;

await using server = FakeLlm.start(summaryResponder());
const base = await Deno.makeTempDir({ prefix: "jpt-bench-watch-rss-" });
let watcher: Deno.ChildProcess | undefined;
try {
  const conversation = await watchedConversation(
    base,
    server.url,
    generateConversation(TURNS, 300, 7, 0),
  );
  const events = join(conversation, "events.json");
  watcher = startWatcher(base, ENTRY);
  // Every turn labelled: the summaries are in the file.
  const labelled = async () =>
    ((await Deno.readTextFile(events)).match(/"summary"/g) ?? []).length;
  for (let waited = 0; (await labelled()) < TURNS; waited += 200) {
    if (waited > 120_000) {
      throw new Error("the watcher did not label the turns");
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  /** One save by released jp, then its labels put back by the watcher. */
  const resave = async () => {
    await runJpEmulator(base, conversation, ["0", "1", "resave", "0"]);
    for (let waited = 0; (await labelled()) < TURNS; waited += 50) {
      if (waited > 30_000) throw new Error("the labels did not come back");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  // Resident memory after these saves.
  const checkpoints = [2, 10, 30, 100, 250, 500, 750, 1000].filter((save) =>
    save <= SAVES
  );
  const rss: Array<[number, number]> = [];
  for (let save = 1; save <= SAVES; save++) {
    await resave();
    if (checkpoints.includes(save)) rss.push([save, rssMb(watcher.pid)]);
  }
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const idle = rssMb(watcher.pid);
  const first = rss[0]![1];
  const mbs = rss.map(([, mb]) => mb);
  console.log(
    `| \`jpt watch\`, ${
      TURNS.toLocaleString("en")
    } turns, re-saved ${SAVES} times: resident memory after save ${
      rss.map(([save, mb]) => `${save}: ${mb.toFixed(0)} MB`).join(", ")
    } | from the 2nd save: ${(Math.min(...mbs) / first).toFixed(2)}× to ${
      (Math.max(...mbs) / first).toFixed(2)
    }×; ${IDLE_MS / 1000} s idle after the last: ${
      idle.toFixed(0)
    } MB | within 0.85–1.15× |`,
  );
} finally {
  if (watcher !== undefined) {
    watcher.kill("SIGTERM");
    await watcher.status;
  }
  await removeTree(base);
}
