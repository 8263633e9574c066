/**
 * `jpt watch`'s resident memory over many saves of one conversation of
 * 1,000 turns: the watcher labels its turns, then a jp emulator re-saves
 * the file as released jp does (every summary and id dropped, nothing
 * else changed) N times, 150 ms apart; the watcher puts the labels back
 * after each. Its resident memory (Linux `/proc`) after the 2nd save and
 * every quarter after, against the 2nd.
 *
 * `deno run -A bench/watch_rss_run.ts [SAVES]` (default 1,000) prints the
 * row.
 *
 * @module
 */

import { join } from "node:path";
import { FakeLlm, summaryResponder } from "../tests/support/fake_llm.ts";
import { generateConversation } from "./generate.ts";
import { rssMb } from "./watch_run.ts";
import { removeTree } from "./run_jpt.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SAVES = Number(Deno.args[0] ?? 1000);
const TURNS = 1000;
const GAP_MS = 150;

await using server = FakeLlm.start(summaryResponder());
const base = await Deno.makeTempDir({ prefix: "jpt-bench-watch-rss-" });
let watcher: Deno.ChildProcess | undefined;
try {
  const conversation = join(base, ".jp", "conversations", "17800000000");
  await Deno.mkdir(conversation, { recursive: true });
  await Deno.mkdir(join(base, ".jp", "locks"));
  await Deno.writeTextFile(
    join(base, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const events = join(conversation, "events.json");
  await Deno.writeFile(events, generateConversation(TURNS, 300, 7, 0));
  await Deno.writeTextFile(join(conversation, "base_config.json"), "{}\n");
  await Deno.writeTextFile(
    join(conversation, "metadata.json"),
    '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
  );
  watcher = new Deno.Command(Deno.execPath(), {
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
  // Every turn labelled: the summaries are in the file.
  const labelled = async () =>
    ((await Deno.readTextFile(events)).match(/"summary"/g) ?? []).length;
  for (let waited = 0; (await labelled()) < TURNS; waited += 200) {
    if (waited > 120_000) {
      throw new Error("the watcher did not label the turns");
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const resave = async (count: number) => {
    await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        join(ROOT, "tests", "support", "jp_emulator.ts"),
        conversation,
        join(base, ".jp", "locks", "jp-c17800000000.lock"),
        "0",
        String(count),
        "resave",
        String(GAP_MS),
      ],
      stdout: "null",
    }).output();
    // The last save's labels put back.
    for (let waited = 0; (await labelled()) < TURNS; waited += 50) {
      if (waited > 30_000) throw new Error("the labels did not come back");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await resave(2);
  const rss: Array<[number, number]> = [[2, rssMb(watcher.pid)]];
  const quarter = Math.ceil((SAVES - 2) / 4);
  for (let done = 2; done < SAVES;) {
    const count = Math.min(quarter, SAVES - done);
    await resave(count);
    done += count;
    rss.push([done, rssMb(watcher.pid)]);
  }
  const first = rss[0]![1];
  const most = Math.max(...rss.map(([, mb]) => mb));
  console.log(
    `| \`jpt watch\`, ${
      TURNS.toLocaleString("en")
    } turns, re-saved ${SAVES} times: resident memory after save ${
      rss.map(([save, mb]) => `${save}: ${mb.toFixed(0)} MB`).join(", ")
    } | most / after the 2nd save: ${(most / first).toFixed(2)}× | ≤ 1.15× |`,
  );
} finally {
  if (watcher !== undefined) {
    watcher.kill("SIGTERM");
    await watcher.status;
  }
  await removeTree(base);
}
