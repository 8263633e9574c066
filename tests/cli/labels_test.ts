/**
 * Labels you can rely on: they survive a released jp's save (the label
 * store), every turn is eventually nominated (no starvation), the model's
 * text is stored faithfully, and failures are loud.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { sha256Hex } from "../../src/platform/sha256.ts";
import {
  PROMPT_VERSION,
  SUMMARY_INSTRUCTIONS,
} from "../../src/summary/prompt.ts";
import { runJpt } from "../support/cli.ts";
import {
  chatCompletion,
  FakeLlm,
  type RecordedRequest,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import { fixtureConversations, FIXTURES_DIR } from "../support/paths.ts";
import {
  copyConversation,
  saveAsReleasedJp,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const isSummary = (request: RecordedRequest) =>
  ((request.body?.messages as Array<{ content: string }> | undefined)?.[0]
    ?.content ?? "").startsWith("You label the turns");

async function configure(root: string, url: string, extra = "") {
  await Deno.writeTextFile(
    join(root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${url}"\n`,
  );
  await Deno.writeTextFile(join(root, ".jp", "jpt.toml"), extra);
}

Deno.test({
  name:
    "labels survive a released jp's save of real conversations: shown as restored, written back with 0 requests",
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    await using server = FakeLlm.start(summaryResponder());
    await using ws = await tempWorkspace();
    await configure(ws.root, server.url);
    for (const dir of fixtureConversations()) {
      await copyConversation(dir, ws.conversations);
    }
    // The fixtures carry their own models; flags beat that layer.
    const flags = [
      "--cfg",
      'conversation.turn_summary.generate.model:={"id": "ollama/tiny", "context_window": 32768}',
      "--cfg",
      `providers.llm.ollama.base_url=${server.url}`,
    ];
    const first = await runJpt([...flags, "summarize", "--all", "--json"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(first.code, 0, first.stderr);
    const labels = new Map<string, Array<string | null>>();
    const dirs = [...Deno.readDirSync(ws.conversations)].map((e) => e.name);
    for (const name of dirs) {
      const turns = await runJpt(["turns", "--json", name.split("-")[0]!], {
        cwd: ws.root,
        env: ws.env,
      });
      labels.set(
        name,
        JSON.parse(turns.stdout).map((t: { summary: string | null }) =>
          t.summary
        ),
      );
      await saveAsReleasedJp(join(ws.conversations, name));
    }
    const requestsBefore = server.chatRequests.length;
    for (const name of dirs) {
      const turns = await runJpt(["turns", "--json", name.split("-")[0]!], {
        cwd: ws.root,
        env: ws.env,
      });
      const rows = JSON.parse(turns.stdout) as Array<
        { summary: string | null; restored: boolean }
      >;
      assert.deepEqual(rows.map((t) => t.summary), labels.get(name), name);
      assert.ok(
        rows.every((t) => t.summary === null || t.restored),
        `${name}: every label comes from the store now`,
      );
    }
    const second = await runJpt([...flags, "summarize", "--all", "--json"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(second.code, 0, second.stderr);
    const totals = JSON.parse(second.stdout).totals;
    assert.equal(server.chatRequests.length, requestsBefore, "no request");
    assert.equal(totals.summarized, 0);
    assert.ok(totals.restored > 0);
    for (const name of dirs) {
      const stream = ConversationStream.parse(
        await Deno.readFile(join(ws.conversations, name, "events.json")),
      );
      assert.deepEqual(
        stream.turns().map((t) => t.summary ?? null),
        labels.get(name),
        `${name}: written back into the file`,
      );
    }
    const check = await runJpt(["check"], { cwd: ws.root, env: ws.env });
    assert.equal(check.code, 0, check.stdout);
  },
});

/** A conversation of a short turn 1 and a turn 2 of about 700 words. */
function starvationConversation(): Uint8Array {
  const entries: unknown[] = [];
  const turn = (i: number, content: string) => {
    entries.push(
      {
        timestamp: `2026-01-01 00:00:0${i}.0`,
        type: "turn_start",
        event_id: `turn00${i}`,
      },
      { timestamp: `2026-01-01 00:00:0${i}.1`, type: "chat_request", content },
      {
        timestamp: `2026-01-01 00:00:0${i}.2`,
        type: "chat_response",
        message: `answer ${i}`,
      },
    );
  };
  turn(0, "A short first question");
  turn(1, Array.from({ length: 700 }, (_, i) => `word${i}`).join(" "));
  return new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n");
}

Deno.test("no starvation: a turn behind an oversized one and failed requests is summarized once the model works", async () => {
  let failing = true;
  await using server = FakeLlm.start((request) => {
    if (request.body?.stream) return { stream: { pieces: ["ok"] } };
    if (failing) return { status: 500, json: { error: { message: "down" } } };
    return summaryResponder()(request);
  });
  await using ws = await tempWorkspace();
  await configure(
    ws.root,
    server.url,
    '[conversation.turn_summary.generate]\nbatch_size = 2\n[conversation.turn_summary.generate.model]\nid = "ollama/tiny"\ncontext_window = 1200\n',
  );
  await writeConversation(
    ws.conversations,
    "17800000000",
    starvationConversation(),
  );
  const query = (word: string) =>
    runJpt(["query", "--id", "last", word], { cwd: ws.root, env: ws.env });
  for (const word of ["q1", "q2", "q3"]) {
    assert.equal((await query(word)).code, 0);
  }
  failing = false;
  for (const word of ["q4", "q5", "q6"]) {
    assert.equal((await query(word)).code, 0);
  }
  const turns = await runJpt(["turns", "--json", "last"], {
    cwd: ws.root,
    env: ws.env,
  });
  const rows = JSON.parse(turns.stdout) as Array<{ summary: string | null }>;
  assert.equal(
    rows[0]!.summary,
    "Summarize turn turn000",
    "turn 1 is summarized",
  );
  assert.equal(rows[1]!.summary, null, "the oversized turn is never sent");
  const sent = server.chatRequests.filter(isSummary).flatMap(requestedTurnIds);
  assert.ok(!sent.includes("turn001"));
});

Deno.test("the model's text is stored exactly when it is already a good label", async () => {
  const label = "`parse_args` in __init__ calls `check_x`";
  await using server = FakeLlm.start((request) => ({
    json: chatCompletion(JSON.stringify({
      summaries: Object.fromEntries(
        requestedTurnIds(request).map((id) => [id, label]),
      ),
    })),
  }));
  await using ws = await tempWorkspace();
  await configure(ws.root, server.url);
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    starvationConversation(),
  );
  const result = await runJpt(["summarize"], { cwd: ws.root, env: ws.env });
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const stream = ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  );
  assert.equal(stream.turns()[0]!.summary, label);
});

Deno.test("summarize prints totals and exits 1 when every request failed", async () => {
  await using server = FakeLlm.start(() => ({
    status: 500,
    json: { error: { message: "boom" } },
  }));
  await using ws = await tempWorkspace();
  await configure(ws.root, server.url);
  await writeConversation(
    ws.conversations,
    "17800000000",
    starvationConversation(),
  );
  const result = await runJpt(["summarize", "--timeout", "5"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /\nTotal: 1 conversation: 0 summarized, 0 restored, 0 skipped, 1 failed; turns: 0 summarized, 0 restored, 0 skipped, 2 failed\n$/,
  );
  assert.match(
    result.stderr,
    /error: jp-c17800000000: ollama answered HTTP 500/,
  );
});

Deno.test("a legacy conversation is not rewritten for turns that are never sent", async () => {
  await using server = FakeLlm.start(() => ({ status: 500, text: "" }));
  await using ws = await tempWorkspace();
  await configure(ws.root, server.url);
  const legacy = new TextEncoder().encode(
    JSON.stringify(
      [
        {
          type: "config_delta",
          timestamp: "2026-01-01 00:00:00.0",
          delta: {},
        },
        {
          timestamp: "2026-01-01 00:00:00.1",
          type: "chat_request",
          content: "hello",
        },
        {
          timestamp: "2026-01-01 00:00:00.2",
          type: "chat_response",
          message: "hi",
        },
      ],
      null,
      2,
    ) + "\n",
  );
  const dir = await writeConversation(ws.conversations, "17800000000", legacy);
  await runJpt(["summarize", "--timeout", "5"], { cwd: ws.root, env: ws.env });
  assert.deepEqual(await Deno.readFile(join(dir, "events.json")), legacy);
});

Deno.test("at the end of a query, a summary model that cannot work names the fix; a passing failure says nothing", async () => {
  await using server = FakeLlm.start((request) =>
    request.body?.stream
      ? { stream: { pieces: ["ok"] } }
      : { status: 500, json: { error: { message: "busy" } } }
  );
  await using ws = await tempWorkspace();
  await configure(ws.root, server.url);
  await writeConversation(
    ws.conversations,
    "17800000000",
    starvationConversation(),
  );
  const transient = await runJpt(["query", "--id", "last", "again"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(transient.code, 0);
  assert.equal(transient.stderr, "");
  await Deno.writeTextFile(
    join(ws.root, ".jp", "jpt.toml"),
    '[conversation.turn_summary.generate.model]\nid = "openai/gpt-5-nano"\n',
  );
  const noKey = await runJpt(["query", "--id", "last", "more"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(noKey.code, 0);
  assert.equal(
    noKey.stderr,
    "warning: Turn summaries cannot run: No API key for openai: set the environment variable OPENAI_API_KEY\n",
  );
});

Deno.test("PROMPT_VERSION is tied to the prompt text", async () => {
  // Changing the prompt means bumping PROMPT_VERSION and the hash here.
  const pinned: Record<number, string> = {
    1: "87d852ca7fa53c84b55079ecd4a68293f2ecf482183c57a1ed42958d870a9fc8",
  };
  assert.equal(
    await sha256Hex(SUMMARY_INSTRUCTIONS),
    pinned[PROMPT_VERSION],
    `the prompt changed: bump PROMPT_VERSION (now ${PROMPT_VERSION}) and pin the new hash`,
  );
});
