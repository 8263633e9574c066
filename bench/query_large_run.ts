/**
 * How soon `jpt query` sends its request, side by side in one run, from the
 * start of each process to the request's arrival at a loopback model:
 *
 * - at 10,000 labelled turns (26 MB; the label store holding the labels,
 *   as after jpt wrote them), against a script that does what the query
 *   must do first and nothing else: read the file, `JSON.parse` it and
 *   write it atomically (a new file renamed over it);
 * - at 10 turns, against a script that sends the same body with a bare
 *   `fetch`; beside it, the row's floor: the same fetch after loading the
 *   modules a query loads before its request, from this checkout's
 *   sources (as the shim runs them).
 *
 * Each query runs on a fresh copy of the conversation; medians of 11 rounds
 * (3 with `--quick`), alternated, with the spread of the ratios.
 *
 * `deno run -A bench/query_large_run.ts [--before DIR] [--quick]` prints
 * the rows (with `--before`, another checkout measured beside this one).
 *
 * @module
 */

import { join } from "node:path";
import { chatCompletion, FakeLlm } from "../tests/support/fake_llm.ts";
import { generateConversation } from "./generate.ts";
import {
  beforeMain,
  MAIN,
  removeTree,
  runToEnd,
  type SideBySide,
  sideBySide,
} from "./run_jpt.ts";
import { writeConversation } from "../tests/support/workspace.ts";

const quick = Deno.args.includes("--quick");
const ROUNDS = quick ? 3 : 11;
/** `--before DIR`: another checkout's `main.ts`, measured beside this one. */
const before = beforeMain();

await using server = FakeLlm.start((request) =>
  request.body?.stream
    ? { stream: { pieces: ["ok"] } }
    : { json: chatCompletion("{}") }
);
const root = await Deno.makeTempDir({ prefix: "jpt-bench-query-" });
const env = { NO_COLOR: "1", JPT_DATA_DIR: join(root, "data") };
let next = 17800000000;

/** A new conversation of `events`; its id. */
async function add(events: Uint8Array): Promise<string> {
  const id = String(next++);
  const dir = await writeConversation(
    join(root, ".jp", "conversations"),
    id,
    events,
  );
  await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
  return id;
}

/** Runs a command to its end in the bench's workspace; when it started. */
function run(command: string[]): Promise<number> {
  return runToEnd(command, root, env);
}

/** Runs a command; ms from its start to the arrival of its first chat request. */
async function arrival(
  command: string[],
  streamedOnly = true,
): Promise<number> {
  const before = server.chatRequests.length;
  const started = await run(command);
  // The streamed one: a detached worker's summary request is not.
  const request = server.chatRequests.slice(before).find((r) =>
    r.body?.stream === true || !streamedOnly
  );
  if (request === undefined) {
    throw new Error(`${command.join(" ")}: no request`);
  }
  return request.receivedAt - started;
}

/** Waits for the detached worker a query started to have sent its request and ended. */
async function workerDone(): Promise<void> {
  const before = server.chatRequests.length;
  for (let waited = 0; waited < 5000; waited += 50) {
    if (
      server.chatRequests.slice(before).some((r) => r.body?.stream !== true)
    ) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Its write and exit.
  await new Promise((resolve) => setTimeout(resolve, 500));
}

/** Wall time of a command. */
async function wall(command: string[]): Promise<number> {
  const started = await run(command);
  return performance.now() - started;
}

const deno = (
  ...args: string[]
) => [Deno.execPath(), "run", "-A", "--quiet", ...args];
const query = (id: string, entry = MAIN) =>
  deno(entry, "query", "--id", id, "hello");

/** What a query loads before its request, from this checkout. */
const QUERY_MODULES = [
  "main.ts",
  "src/cli/query.ts",
  "src/app/turn/run_turn.ts",
  "src/llm/chat_client.ts",
];
const ROOT = join(import.meta.dirname!, "..");

/** The checkouts measured: this one, and `--before`'s. */
const entries: Array<[string, string]> = [
  ["query", MAIN],
  ...(before === undefined ? [] : [["before", before] as [string, string]]),
];

try {
  await Deno.mkdir(join(root, ".jp"), { recursive: true });
  await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchqu\n");
  await Deno.writeTextFile(
    join(root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/m"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const large = generateConversation(10_000, 300, 7, 10_000);
  const small = generateConversation(10, 300, 7, 10);
  // One conversation, its file put back before each query; its labels in
  // the store, as jpt's own writes left them.
  const largeId = await add(large);
  const largeFile = join(root, ".jp", "conversations", largeId, "events.json");
  await wall(deno(MAIN, "summarize", largeId));
  const floor = join(root, "floor.ts");
  await Deno.writeTextFile(
    floor,
    `const path = Deno.args[0];
const value = JSON.parse(Deno.readTextFileSync(path));
Deno.writeTextFileSync(path + ".tmp", JSON.stringify(value, null, 2) + "\\n");
Deno.renameSync(path + ".tmp", path);
`,
  );
  const fetchScript = join(root, "fetch.ts");
  // The body a query at 10 turns sends, learned from one query.
  const learn = await add(small);
  await arrival(query(learn));
  const body = server.chatRequests.findLast((r) => r.body?.stream === true)!
    .body;
  await Deno.writeTextFile(
    fetchScript,
    `await (await fetch(${
      JSON.stringify(`${server.url}/v1/chat/completions`)
    }, { method: "POST", headers: { "content-type": "application/json" }, body: ${
      JSON.stringify(JSON.stringify(body))
    } })).text();\n`,
  );
  const largeRun = await sideBySide({
    floor: async () =>
      await wall(
        deno(
          floor,
          join(root, ".jp", "conversations", await add(large), "events.json"),
        ),
      ),
    ...Object.fromEntries(entries.map(([name, entry]) => [name, async () => {
      await Deno.writeFile(largeFile, large);
      const ms = await arrival(query(largeId, entry));
      await workerDone();
      return ms;
    }])),
  }, ROUNDS);
  // The row's floor: the modules a query loads before its request (the
  // command line, the turn, the chat client), loaded from this checkout's
  // sources as the shim runs them, then the same fetch.
  const loadedScript = join(root, "loaded.ts");
  await Deno.writeTextFile(
    loadedScript,
    `for (const path of ${
      JSON.stringify(QUERY_MODULES.map((path) => join(ROOT, path)))
    }) await import(path);\n${await Deno.readTextFile(fetchScript)}`,
  );
  const smallRun = await sideBySide({
    fetch: async () => await arrival(deno(fetchScript), false),
    loaded: async () =>
      await arrival(
        deno("--config", join(ROOT, "deno.json"), loadedScript),
        false,
      ),
    ...Object.fromEntries(entries.map(([name, entry]) => [name, async () => {
      const ms = await arrival(query(await add(small), entry));
      await workerDone();
      return ms;
    }])),
  }, ROUNDS);
  /** One table row: the query against `base`, with the checkout before beside it. */
  const row = (what: string, run: SideBySide, base: string, goal: string) =>
    console.log(
      `| \`jpt query\` ${what} (${run.median[base]!.toFixed(0)} ms) | ${
        before === undefined ? "–" : run.ratio("before", base)
      } | ${run.ratio("query", base)} (${
        run.median.query!.toFixed(0)
      } ms) | ${goal} |`,
    );
  row(
    `at 10,000 labelled turns (${
      (large.length / 1e6).toFixed(0)
    } MB): request sent / read, parse and atomically write the file`,
    largeRun,
    "floor",
    "≤ 1.5×",
  );
  row(
    "at 10 turns: request sent / a bare Deno fetch of the same body",
    smallRun,
    "fetch",
    `≤ 2.5× (floor ${
      smallRun.ratio("loaded", "fetch")
    }: the modules a query loads before its request, then the same fetch)`,
  );
} finally {
  await removeTree(root);
}
