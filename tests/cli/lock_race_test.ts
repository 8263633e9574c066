/**
 * The jp stand-in race (issue: a lock that excludes): a released-jp stand-in
 * appends an entry under jp's lock in a loop while `jpt query -c` runs 8
 * turns on the same conversation. Every entry of both sides must survive.
 * `JPT_TEST_RACE_RUNS` repeats it (default 1).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt } from "../support/cli.ts";
import { canRun } from "../support/can_run.ts";
import { chatCompletion, FakeLlm } from "../support/fake_llm.ts";
import { REPO_ROOT } from "../support/paths.ts";
import { tempWorkspace } from "../support/workspace.ts";

const HAS_PYTHON = Deno.build.os !== "windows" &&
  canRun("python3", ["--version"]);
const RUNS = Number(Deno.env.get("JPT_TEST_RACE_RUNS") ?? "1");
const TURNS = 8;

Deno.test({
  name:
    "jpt query -c and a released-jp stand-in writing under the lock lose no entry",
  ignore: !HAS_PYTHON,
  async fn() {
    for (let run = 0; run < RUNS; run++) await raceOnce();
  },
});

async function raceOnce(): Promise<void> {
  await using server = FakeLlm.start((request) =>
    request.body?.stream
      ? { stream: { pieces: ["ok"], pieceDelayMs: 20 } }
      : { json: chatCompletion("{}") }
  );
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n[conversation.title.generate]\nauto = false\n[conversation.turn_summary.generate]\nauto = false\n`,
  );
  const first = await runJpt(["query", "--new", "turn 0"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(first.code, 0, first.stderr);
  const [name] = [...Deno.readDirSync(ws.conversations)].map((e) => e.name);
  const dir = join(ws.conversations, name!);
  const id = name!.split("-")[0]!;
  const stop = join(ws.root, "stop");
  const standIn = new Deno.Command("python3", {
    args: [
      join(REPO_ROOT, "tests", "support", "jp_appender.py"),
      dir,
      join(ws.root, ".jp", "locks", `jp-c${id}.lock`),
      stop,
    ],
    stdout: "piped",
  }).spawn();
  let retries = 0;
  for (let turn = 1; turn < TURNS; turn++) {
    while (true) {
      const result = await runJpt(["query", "--id", id, `turn ${turn}`], {
        cwd: ws.root,
        env: ws.env,
      });
      if (result.code === 0) break;
      assert.match(result.stderr, /locked by another process/, result.stderr);
      retries++;
    }
  }
  await Deno.writeTextFile(stop, "");
  const appended = Number(
    new TextDecoder().decode((await standIn.output()).stdout).trim(),
  );
  const stream = ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  );
  const markers = stream.entries.filter((e) => e.type === "jp_standin_marker")
    .map((e) => e.data().n);
  assert.ok(appended > 0, "the stand-in wrote while jpt ran");
  assert.deepEqual(
    markers,
    Array.from({ length: appended }, (_, i) => i),
    "every stand-in entry survives, in order",
  );
  const requests = stream.entries.filter((e) => e.type === "chat_request")
    .map((e) => e.data().content);
  assert.deepEqual(
    requests,
    Array.from({ length: TURNS }, (_, i) => `turn ${i}`),
    "every jpt turn survives",
  );
  assert.equal(
    stream.entries.filter((e) => e.type === "chat_response").length,
    TURNS,
  );
  console.log(
    `race: ${appended} stand-in entries, ${TURNS} jpt turns, ${retries} lock retries`,
  );
}
