/**
 * Labels that obey the user and are paid for once, through the CLI: your
 * label beats a model's and `--force` keeps it, ids survive a released-jp
 * save byte for byte, and one query asks for at most `batch_size` turns,
 * each once, its worker included.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt } from "../support/cli.ts";
import { eventually } from "../support/eventually.ts";
import {
  FakeLlm,
  isSummaryRequest,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import { fixtureConversations, FIXTURES_DIR } from "../support/paths.ts";
import {
  copyConversation,
  saveAsReleasedJp,
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

/** A model server: replies stream in `turnMs`, summaries answer after `summaryMs`. */
function server(turnMs: number, summaryMs: number): FakeLlm {
  return FakeLlm.start(async (request) => {
    if (request.body?.stream) {
      return { stream: { pieces: ["Re", "ply."], pieceDelayMs: turnMs / 2 } };
    }
    await new Promise((resolve) => setTimeout(resolve, summaryMs));
    return summaryResponder()(request);
  });
}

async function workspaceFor(llm: FakeLlm, jpt = "") {
  const ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n[conversation.title.generate]\nauto = false\n`,
  );
  // Real conversations store their own title model: summaries use ours.
  await Deno.writeTextFile(
    join(ws.root, ".jp", "jpt.toml"),
    `[conversation.turn_summary.generate.model]\nid = "ollama/tiny"\n${jpt}`,
  );
  return ws;
}

/** The fixtures carry their own models and endpoints; flags beat that layer. */
const flags = (llm: FakeLlm) => [
  "--cfg",
  'conversation.turn_summary.generate.model:={"id": "ollama/tiny", "context_window": 32768}',
  "--cfg",
  `providers.llm.ollama.base_url=${llm.url}`,
];

const turnsOf = async (dir: string) =>
  ConversationStream.parse(await Deno.readFile(join(dir, "events.json")))
    .turns();

Deno.test({
  name:
    "--force asks again for every model label of a held-out conversation and keeps the one the user wrote",
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    await using llm = server(0, 0);
    await using ws = await workspaceFor(llm);
    const held = fixtureConversations().find((dir) =>
      dir.includes("17738348630")
    )!;
    const dir = await copyConversation(held, ws.conversations);
    const run = (args: string[]) =>
      runJpt([...flags(llm), "summarize", ...args, "--json"], {
        cwd: ws.root,
        env: ws.env,
      });
    const first = await run([]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout).totals.summarized, 8);
    // The user rewords turn 2 in the file.
    const stream = ConversationStream.parse(
      await Deno.readFile(join(dir, "events.json")),
    );
    const turn2 = stream.turns()[1]!;
    stream.setTurnSummary(turn2.id!, "What I decided here");
    await Deno.writeFile(join(dir, "events.json"), stream.serialize());
    const stale = await runJpt(["turns", "--stale"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(stale.stdout.match(/\[model\]/g)?.length, 7, stale.stdout);
    const asked = llm.chatRequests.filter(isSummaryRequest).length;
    const forced = await run(["--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    const again = llm.chatRequests.filter(isSummaryRequest).slice(asked)
      .flatMap(
        requestedTurnIds,
      );
    assert.equal(again.length, 7, again.join(", "));
    assert.ok(!again.includes(turn2.id!));
    assert.equal((await turnsOf(dir))[1]!.summary, "What I decided here");
    // --force-user redoes the user's label too.
    const all = await run(["--force", "--force-user"]);
    assert.equal(JSON.parse(all.stdout).totals.summarized, 8);
    const usage = await runJpt(["summarize", "--force-user"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(usage.code, 2);
  },
});

Deno.test({
  name:
    "after a released-jp save and a jpt restore every real conversation is byte for byte what it was: 100% of ids kept",
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    await using llm = server(0, 0);
    await using ws = await workspaceFor(llm);
    const dirs = [];
    for (const dir of fixtureConversations()) {
      dirs.push(await copyConversation(dir, ws.conversations));
    }
    const env = ws.env;
    assert.equal(
      (await runJpt([...flags(llm), "summarize", "--all"], {
        cwd: ws.root,
        env,
      })).code,
      0,
    );
    const before = await Promise.all(
      dirs.map((dir) => Deno.readTextFile(join(dir, "events.json"))),
    );
    for (const dir of dirs) await saveAsReleasedJp(dir);
    const asked = llm.chatRequests.length;
    const restore = await runJpt([
      ...flags(llm),
      "summarize",
      "--all",
      "--json",
    ], {
      cwd: ws.root,
      env,
    });
    assert.equal(restore.code, 0, restore.stderr);
    assert.equal(llm.chatRequests.length, asked, "no request");
    const ids = (text: string) =>
      ConversationStream.parse(new TextEncoder().encode(text)).turns().map((
        turn,
      ) => turn.id);
    for (const [i, dir] of dirs.entries()) {
      const after = await Deno.readTextFile(join(dir, "events.json"));
      assert.deepEqual(ids(after), ids(before[i]!));
      assert.equal(after, before[i], dir);
    }
  },
});

Deno.test("one query on a 30-turn backlog asks for at most batch_size turns, each once, its worker included", async () => {
  await using llm = server(100, 300);
  await using ws = await workspaceFor(
    llm,
    "[conversation.turn_summary.generate]\nbatch_size = 5\n",
  );
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("b", 30),
  );
  const env = {
    ...ws.env,
    JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_DETACH: "true",
  };
  const result = await runJpt(["query", "next question"], {
    cwd: ws.root,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  await eventually(
    "the worker labelled its turns",
    async () => (await turnsOf(dir)).filter((t) => t.summary).length === 5,
  );
  const log = join(ws.env.JPT_DATA_DIR!, "worker.log");
  await eventually(
    "the worker ended",
    async () => /\] done\n$/.test(await Deno.readTextFile(log)),
  );
  const asked = llm.chatRequests.filter(isSummaryRequest).flatMap(
    requestedTurnIds,
  );
  assert.equal(asked.length, 5, asked.join(", "));
  assert.equal(new Set(asked).size, 5, "each once");
});

Deno.test("five back-to-back queries with summaries slower than turns: each turn asked for once, turns 1-4 labelled", async () => {
  // S = 3 × T, as in the 3 s / 1 s, scaled down.
  await using llm = server(400, 1_200);
  await using ws = await workspaceFor(llm);
  const env = {
    ...ws.env,
    JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_DETACH: "true",
  };
  const query = (words: string[]) =>
    runJpt(["query", ...words], { cwd: ws.root, env });
  assert.equal((await query(["--new", "question 1"])).code, 0);
  for (let i = 2; i <= 5; i++) {
    const result = await query([`question ${i}`]);
    assert.equal(result.code, 0, result.stderr);
  }
  const [name] = [...Deno.readDirSync(ws.conversations)].map((e) => e.name);
  const dir = join(ws.conversations, name!);
  // Workers left to their work; then one more query picks up what is left.
  await eventually(
    "no worker holds the conversation",
    async () => {
      const text = await Deno.readTextFile(
        join(ws.env.JPT_DATA_DIR!, "worker.log"),
      )
        .catch(() => "");
      const started = text.match(/\] started/g)?.length ?? 0;
      const ended = text.match(/\] (done|failed)/g)?.length ?? 0;
      return started === ended;
    },
  );
  assert.equal((await query(["question 6"])).code, 0);
  await eventually(
    "turns 1-4 labelled",
    async () =>
      (await turnsOf(dir)).slice(0, 4).every((turn) =>
        turn.summary !== undefined
      ),
  );
  const asked = llm.chatRequests.filter(isSummaryRequest).flatMap(
    requestedTurnIds,
  );
  assert.equal(new Set(asked).size, asked.length, `each once: ${asked}`);
});
