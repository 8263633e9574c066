/**
 * Finding any turn: `jpt turns --all`, `jpt find`, `jpt show`, `jpt outline`
 * on the real jp conversations, labelled by a loopback model first.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runJpt } from "../support/cli.ts";
import { FakeLlm, summaryResponder } from "../support/fake_llm.ts";
import { fixtureConversations, FIXTURES_DIR } from "../support/paths.ts";
import {
  copyConversation,
  saveAsReleasedJp,
  tempWorkspace,
} from "../support/workspace.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { join } from "node:path";
import { readEvent } from "../../src/conversation/events.ts";

async function labelledFixtures() {
  const llm = FakeLlm.start(
    summaryResponder((id) => `Label of ${id} about parsing`),
  );
  const ws = await tempWorkspace();
  const dirs: string[] = [];
  for (const dir of fixtureConversations()) {
    dirs.push(await copyConversation(dir, ws.conversations));
  }
  const flags = [
    "--cfg",
    'conversation.turn_summary.generate.model:={"id": "ollama/tiny", "context_window": 32768}',
    "--cfg",
    `providers.llm.ollama.base_url=${llm.url}`,
  ];
  const run = (args: string[]) =>
    runJpt([...flags, ...args], { cwd: ws.root, env: ws.env });
  assert.equal((await run(["summarize", "--all"])).code, 0);
  return { llm, ws, dirs, run };
}

const turnsOf = async (dir: string) =>
  ConversationStream.parse(await Deno.readFile(join(dir, "events.json")))
    .turns();

Deno.test({
  name:
    "on real conversations: turns --all lists every turn, find finds a label first and exactly the requests holding a word, show prints one turn",
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    const { llm, ws, dirs, run } = await labelledFixtures();
    await using _l = llm;
    await using _w = ws;
    // Every turn of the workspace, with its conversation.
    const all = JSON.parse((await run(["turns", "--all", "--json"])).stdout);
    let total = 0;
    for (const dir of dirs) total += (await turnsOf(dir)).length;
    assert.equal(all.length, total);
    assert.ok(
      all.every((turn: { conversation: string }) =>
        /^jp-c\d+$/.test(turn.conversation)
      ),
    );
    // A turn's label finds that turn first.
    const sample = (await turnsOf(dirs[4]!))[2]!;
    const byLabel = JSON.parse(
      (await run(["find", "--json", sample.summary!])).stdout,
    );
    assert.equal(byLabel[0].event_id, sample.id);
    assert.equal(byLabel[0].matches[0].where, "summary");
    // A word that occurs in some requests (and nowhere else) finds exactly those.
    const word = "sanitization";
    const expected: string[] = [];
    for (const dir of dirs) {
      for (const turn of await turnsOf(dir)) {
        const texts = turn.events.map(readEvent).flatMap((event) =>
          event?.type === "chat_request"
            ? [event.content]
            : event?.type === "chat_response" && event.kind === "message"
            ? [event.text ?? ""]
            : []
        );
        if (texts.some((text) => /sanitization/i.test(text))) {
          expected.push(`${turn.id}`);
        }
      }
    }
    const found = await run(["find", "--json", word]);
    assert.deepEqual(
      JSON.parse(found.stdout).map((t: { event_id: string }) => t.event_id)
        .sort(),
      expected.sort(),
    );
    assert.ok(expected.length > 0);
    // show <id> --turn 2 prints turn 2's request under its header.
    const conversation = dirs[4]!.split("/").at(-1)!.split("-")[0]!;
    const turn2 = (await turnsOf(dirs[4]!))[1]!;
    const shown = await run(["show", conversation, "--turn", "2"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(
      shown.stdout.startsWith(`# Turn 2 (${turn2.id}): ${turn2.summary}\n`),
      shown.stdout.slice(0, 200),
    );
    const request = readEvent(
      turn2.events.find((e) => e.type === "chat_request")!,
    );
    assert.ok(
      request?.type === "chat_request" &&
        shown.stdout.includes(request.content.split("\n")[0]!),
    );
    // Nothing matched: exit 1, as grep.
    assert.equal((await run(["find", "zz-no-such-word-zz"])).code, 1);
  },
});

Deno.test("find and turns --all see a label jp's save dropped; outline is a changelog", async () => {
  await using llm = FakeLlm.start(
    summaryResponder(() => "Switched from Mutex to RwLock"),
  );
  await using ws = await tempWorkspace();
  const { writeConversation, simpleTurns } = await import(
    "../support/workspace.ts"
  );
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("m", 1),
  );
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n`,
  );
  const run = (args: string[]) => runJpt(args, { cwd: ws.root, env: ws.env });
  assert.equal((await run(["summarize"])).code, 0);
  await saveAsReleasedJp(dir);
  const found = JSON.parse((await run(["find", "--json", "rwlock"])).stdout);
  assert.equal(found.length, 1);
  assert.equal(found[0].restored, true);
  const all = await run(["turns", "--all"]);
  assert.match(all.stdout, /Switched from Mutex to RwLock \[restored\]/);
  const outline = await run(["outline"]);
  assert.equal(outline.stdout, "- Switched from Mutex to RwLock\n");
});

Deno.test("find takes the words as one phrase (--all-words for each anywhere), --scope, --limit and --context; show takes --turn A..B, --first and --last as jp does", async () => {
  await using ws = await tempWorkspace();
  const { writeConversation } = await import("../support/workspace.ts");
  const entries = [
    ["retry with backoff\nsecond line\nthird line", "the backoff helps"],
    ["why does the parser reject commas", "a retry is not needed"],
    ["and trailing backoff?", "fine"],
  ].flatMap(([request, response], i) => [
    { timestamp: `2026-01-01 00:00:0${i}.0`, type: "turn_start" },
    {
      timestamp: `2026-01-01 00:00:0${i}.1`,
      type: "chat_request",
      content: request,
    },
    {
      timestamp: `2026-01-01 00:00:0${i}.2`,
      type: "chat_response",
      message: response,
    },
  ]);
  await writeConversation(
    ws.conversations,
    "17800000000",
    new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n"),
  );
  const run = (args: string[]) => runJpt(args, { cwd: ws.root, env: ws.env });
  const indices = async (args: string[]) => {
    const result = await run(["find", "--json", ...args]);
    return result.code === 1 && result.stdout === ""
      ? []
      : JSON.parse(result.stdout).map((t: { index: number }) => t.index);
  };
  // "retry backoff" is no phrase anywhere; turn 1 holds each word.
  assert.deepEqual(await indices(["retry", "backoff"]), []);
  assert.deepEqual(await indices(["--all-words", "retry", "backoff"]), [0]);
  assert.deepEqual(await indices(["retry", "with", "backoff"]), [0]);
  assert.deepEqual(await indices(["backoff", "--scope", "user"]), [2, 0]);
  assert.deepEqual(await indices(["backoff", "-s", "assistant"]), [0]);
  assert.deepEqual(await indices(["backoff", "--limit", "1"]), [2]);
  const context = await run(["find", "with backoff", "--context", "1"]);
  assert.equal(context.code, 0, context.stderr);
  assert.match(
    context.stdout,
    /request:\n {6}retry with backoff\n {6}second line\n$/,
  );
  const badScope = await run(["find", "x", "--scope", "bogus"]);
  assert.equal(badScope.code, 2);
  assert.match(badScope.stderr, /not a scope.*summary, user, assistant/);
  const shown = async (args: string[]) =>
    [...(await run(["show", "17800000000", ...args])).stdout.matchAll(
      /^# Turn (\d+)/gm,
    )]
      .map((m) => Number(m[1]));
  assert.deepEqual(await shown(["--turn", "2..3"]), [2, 3]);
  assert.deepEqual(await shown(["--turn", "..2"]), [1, 2]);
  assert.deepEqual(await shown(["--last", "2"]), [2, 3]);
  assert.deepEqual(await shown(["--last"]), [3]);
  assert.deepEqual(await shown(["--first", "2"]), [1, 2]);
  const both = await run(["show", "--first", "--last"]);
  assert.equal(both.code, 2);
  const outside = await run(["show", "17800000000", "--turn", "4..5"]);
  assert.equal(outside.code, 2);
  assert.match(outside.stderr, /No turn 4\.\.5 in jp-c17800000000 \(it has 3/);
});
