import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt } from "../support/cli.ts";
import {
  chatCompletion,
  FakeLlm,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import {
  fixtureConversations,
  FIXTURES_DIR,
  testdata,
} from "../support/paths.ts";
import {
  copyConversation,
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const decoder = new TextDecoder();

async function configure(root: string, baseUrl: string, extra = "") {
  await Deno.writeTextFile(
    join(root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${baseUrl}"\n${extra}`,
  );
}

const nonTurnStarts = (bytes: Uint8Array) =>
  ConversationStream.parse(bytes).entries.filter((e) => e.type !== "turn_start")
    .map((e) => decoder.decode(e.bytes));

/** A conversation of `count` complete turns, with a tool call and long texts where asked. */
function manyTurns(count: number, longAt = -1): Uint8Array {
  const entries: unknown[] = [];
  for (let i = 0; i < count; i++) {
    entries.push({
      event_id: `turn${String(i).padStart(3, "0")}`,
      timestamp: `2026-01-01 00:00:${String(i).padStart(2, "0")}.0`,
      type: "turn_start",
    });
    entries.push({
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: i === longAt
        ? "L".repeat(3000) + "R".repeat(3000)
        : `request ${i}`,
    });
    entries.push({
      timestamp: "2026-01-01 00:00:00.2",
      type: "tool_call_request",
      id: `c${i}`,
      name: "fs_read_file",
      arguments: { path: btoa(`secret-path-${i}`) },
    });
    entries.push({
      timestamp: "2026-01-01 00:00:00.3",
      type: "tool_call_response",
      id: `c${i}`,
      content: btoa(`secret-output-${i}`),
      is_error: i % 2 === 1,
    });
    entries.push({
      timestamp: "2026-01-01 00:00:00.4",
      type: "chat_response",
      message: `response ${i}`,
    });
  }
  return new TextEncoder().encode(
    JSON.stringify(
      [
        { type: "config_delta", timestamp: "2026-01-01 00:00:00.0", delta: {} },
        ...entries,
      ],
      null,
      2,
    ) + "\n",
  );
}

Deno.test("jpt summarize sends packed turns in the transcript format, batch by batch, newest first", async () => {
  await using ws = await tempWorkspace();
  await using server = FakeLlm.start(summaryResponder());
  await configure(ws.root, server.url);
  const dir = await writeConversation(
    ws.conversations,
    "17758406187",
    manyTurns(7, 6),
  );
  const before = await Deno.readFile(join(dir, "events.json"));
  const result = await runJpt([
    "summarize",
    "--batch-size",
    "3",
    "--json",
    "17758406187",
  ], { cwd: ws.root, env: ws.env });
  assert.equal(result.code, 0, result.stderr);
  const chats = server.chatRequests;
  assert.deepEqual(chats.map(requestedTurnIds), [
    ["turn006", "turn005", "turn004"],
    ["turn003", "turn002", "turn001"],
    ["turn000"],
  ]);
  for (const request of chats) {
    const ids = requestedTurnIds(request);
    const schema = (request.body!.response_format as {
      json_schema: {
        schema: { properties: { summaries: { properties: object } } };
      };
    })
      .json_schema.schema.properties.summaries.properties;
    assert.deepEqual(
      Object.keys(schema),
      ids,
      "the schema's properties are exactly the packed ids",
    );
    const text = JSON.stringify(request.body);
    assert.ok(
      !text.includes("secret") &&
        !text.includes(btoa("secret-path-1").slice(0, 12)),
      "tool arguments and results never appear",
    );
  }
  const first =
    (chats[0]!.body!.messages as Array<{ content: string }>)[1]!.content;
  assert.ok(
    first.startsWith(
      '<turn id="turn006">\n<request>' + "L".repeat(2000) + "[\u2026]" +
        "R".repeat(2000) + "</request>",
    ),
  );
  assert.ok(
    first.includes(
      '<turn id="turn005">\n<request>request 5</request>\n<tool_call name="fs_read_file"/>\n<tool_error/>\n<response>response 5</response>\n</turn>',
    ),
  );
  const report = JSON.parse(result.stdout);
  assert.equal(report.conversations[0].summarized.length, 7);
  const after = await Deno.readFile(join(dir, "events.json"));
  assert.deepEqual(nonTurnStarts(after), nonTurnStarts(before));
  assert.ok(
    ConversationStream.parse(after).turns().every((turn) =>
      turn.summary === `Summarize turn ${turn.id}`
    ),
  );
});

Deno.test("jpt summarize normalizes a lying model's answers and keeps only requested ids", async () => {
  await using ws = await tempWorkspace();
  const answers: Record<string, string> = {
    turn000: '"Quoted summary."\nwith a second line',
    turn001: "y".repeat(500),
    turn002: "\u001b[2J\u001b]0;owned\u0007Escape laden",
    turn003: "   ",
  };
  await using server = FakeLlm.start(() => ({
    json: chatCompletion(
      JSON.stringify({
        summaries: { ...answers, intruder: "Not asked", turn999: "Nope" },
      }),
    ),
  }));
  await configure(ws.root, server.url);
  const dir = await writeConversation(
    ws.conversations,
    "17758406187",
    manyTurns(4),
  );
  const result = await runJpt(["summarize", "--json"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 0, result.stderr);
  const turns = ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  ).turns();
  assert.deepEqual(turns.map((turn) => turn.summary), [
    "Quoted summary",
    "y".repeat(60),
    "Escape laden",
    undefined,
  ]);
  const skipped = JSON.parse(result.stdout).conversations[0].skipped;
  assert.deepEqual(
    skipped.map((s: { id: string; reason: string }) => [s.id, s.reason]),
    [["turn003", "no_summary"]],
  );
  assert.ok(
    !decoder.decode(await Deno.readFile(join(dir, "events.json"))).includes(
      "intruder",
    ),
  );
});

Deno.test("jpt summarize survives empty, non-JSON, failing, hanging and unreachable models", async () => {
  const cases: Array<[string, (server: FakeLlm) => void, string[]]> = [
    ["empty", (s) => s.respond(() => ({ json: chatCompletion("") })), []],
    [
      "prose",
      (s) => s.respond(() => ({ json: chatCompletion("I'd rather not.") })),
      [],
    ],
    [
      "http 500",
      (s) =>
        s.respond(() => ({
          status: 500,
          json: { error: { message: "boom" } },
        })),
      ["--timeout", "5"],
    ],
    [
      "hang",
      (s) =>
        s.respond((r) =>
          r.path.endsWith("/chat/completions")
            ? { hang: true }
            : { status: 404, text: "" }
        ),
      [
        "--timeout",
        "0.5",
      ],
    ],
  ];
  for (const [name, arrange, extra] of cases) {
    await using ws = await tempWorkspace();
    await using server = FakeLlm.start();
    arrange(server);
    await configure(ws.root, server.url);
    const dir = await writeConversation(
      ws.conversations,
      "17758406187",
      manyTurns(2),
    );
    const before = await Deno.readFile(join(dir, "events.json"));
    const result = await runJpt(["summarize", "--json", ...extra], {
      cwd: ws.root,
      env: ws.env,
    });
    // A request that failed makes the run fail (loudly); a bad answer does not.
    const failed = name === "http 500" || name === "hang";
    assert.equal(result.code, failed ? 1 : 0, `${name}: ${result.stderr}`);
    const outcome = JSON.parse(result.stdout).conversations[0];
    assert.equal(outcome.summarized.length, 0, name);
    const reasons = new Set(
      outcome.skipped.map((s: { reason: string }) => s.reason),
    );
    assert.deepEqual([...reasons], [
      name === "http 500" || name === "hang" ? "model_error" : "no_summary",
    ], name);
    assert.deepEqual(
      nonTurnStarts(await Deno.readFile(join(dir, "events.json"))),
      nonTurnStarts(before),
      name,
    );
    if (name === "hang") {
      const request = server.chatRequests[0]!;
      for (let i = 0; i < 100 && request.abortedAt === undefined; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(
        request.abortedAt !== undefined,
        "the server saw the client disconnect",
      );
    }
  }
  await using ws = await tempWorkspace();
  await configure(ws.root, "http://127.0.0.1:9");
  await writeConversation(ws.conversations, "17758406187", manyTurns(1));
  const refused = await runJpt(["summarize"], { cwd: ws.root, env: ws.env });
  assert.equal(refused.code, 1, "a failed request fails the run");
  assert.match(
    refused.stdout,
    /0 summarized, 1 skipped\n {2}skipped # Turn 1 \(turn000\): model error: Cannot reach ollama/,
  );
});

Deno.test("jpt summarize drops a turn edited on disk before the model answers, and gets it next run", async () => {
  await using ws = await tempWorkspace();
  let dir = "";
  let edited = false;
  await using server = FakeLlm.start(async (request) => {
    if (!edited && request.path.endsWith("/chat/completions")) {
      edited = true;
      const path = join(dir, "events.json");
      await Deno.writeTextFile(
        path,
        (await Deno.readTextFile(path)).replace(
          '"request 1"',
          '"request 1, edited"',
        ),
      );
    }
    return summaryResponder()(request);
  });
  await configure(ws.root, server.url);
  dir = await writeConversation(ws.conversations, "17758406187", manyTurns(2));
  const first = JSON.parse(
    (await runJpt(["summarize", "--json"], { cwd: ws.root, env: ws.env }))
      .stdout,
  ).conversations[0];
  assert.deepEqual(
    first.skipped.map((s: { id: string; reason: string }) => [s.id, s.reason]),
    [["turn001", "changed"]],
  );
  assert.deepEqual(first.summarized.map((s: { id: string }) => s.id), [
    "turn000",
  ]);
  const second = JSON.parse(
    (await runJpt(["summarize", "--json"], { cwd: ws.root, env: ws.env }))
      .stdout,
  ).conversations[0];
  assert.deepEqual(second.summarized.map((s: { id: string }) => s.id), [
    "turn001",
  ]);
  assert.deepEqual(requestedTurnIds(server.chatRequests[1]!), ["turn001"]);
});

Deno.test("jpt summarize skips a conversation whose lock is held, at the start or at sync", async () => {
  await using ws = await tempWorkspace();
  await using server = FakeLlm.start(summaryResponder());
  await configure(ws.root, server.url);
  const dir = await writeConversation(
    ws.conversations,
    "17758406187",
    manyTurns(1),
  );
  const lockFile = join(ws.root, ".jp", "locks", "jp-c17758406187.lock");
  await Deno.mkdir(join(ws.root, ".jp", "locks"));
  const before = await Deno.readFile(join(dir, "events.json"));
  const { ConversationLock } = await import("../../src/workspace/lock.ts");
  const held = await ConversationLock.acquire(lockFile);
  const locked = await runJpt(["summarize", "--json"], {
    cwd: ws.root,
    env: ws.env,
  });
  await held.release();
  assert.equal(locked.code, 0, locked.stderr);
  const outcome = JSON.parse(locked.stdout).conversations[0];
  assert.equal(outcome.status, "locked");
  assert.match(outcome.error, /locked by another process/);
  assert.equal(server.chatRequests.length, 0);
  assert.deepEqual(await Deno.readFile(join(dir, "events.json")), before);

  let holder: { release(): Promise<void> } | undefined;
  server.respond(async (request) => {
    if (request.path.endsWith("/chat/completions")) {
      holder = await ConversationLock.acquire(lockFile);
    }
    return summaryResponder()(request);
  });
  const atSync = await runJpt(["summarize", "--json"], {
    cwd: ws.root,
    env: ws.env,
  });
  await holder?.release();
  const skipped = JSON.parse(atSync.stdout).conversations[0].skipped;
  assert.deepEqual(skipped.map((s: { reason: string }) => s.reason), [
    "locked",
  ]);
  assert.equal(
    ConversationStream.parse(await Deno.readFile(join(dir, "events.json")))
      .turns()[0]!.summary,
    undefined,
  );
});

Deno.test("jpt summarize --dry-run shows batches and sends nothing", async () => {
  await using ws = await tempWorkspace();
  await using server = FakeLlm.start(summaryResponder());
  await configure(ws.root, server.url, "context_window = 1400\n");
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\ncontext_window = 1400\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const dir = await writeConversation(
    ws.conversations,
    "17758406187",
    manyTurns(4, 0),
  );
  const before = await Deno.readFile(join(dir, "events.json"));
  const result = await runJpt(["summarize", "--dry-run", "--batch-size", "2"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /^jp-c17758406187 \(ollama\/tiny\): context window 1400 tokens \(config\)\n {2}batch 1: 2 turn\(s\), ~\d+ tokens\n {4}# Turn 4 \(turn003\): ~\d+ tokens, [0-9a-f]{12}\n {4}# Turn 3 \(turn002\)/,
  );
  assert.match(result.stdout, /batch 2: 1 turn\(s\)/);
  assert.match(
    result.stdout,
    /oversized: # Turn 1 \(turn000\): ~\d+ tokens, never sent\n/,
  );
  assert.equal(server.requests.length, 0, "no request reached the server");
  assert.deepEqual(
    await Deno.readFile(join(dir, "events.json")),
    before,
    "nothing written",
  );
});

Deno.test("jpt summarize gives a legacy stream a turn_start and summarizes it", async () => {
  await using ws = await tempWorkspace();
  await using server = FakeLlm.start(
    summaryResponder(() => "Explain the iter_mut segfault"),
  );
  await configure(ws.root, server.url);
  const dir = await writeConversation(
    ws.conversations,
    "17758406187",
    await Deno.readFile(testdata("streams", "g1.json")),
  );
  // The legacy stream's own config names an Anthropic model; flags beat the conversation layer.
  const flags = [
    "--cfg",
    "conversation.turn_summary.generate.model.id=ollama/tiny",
    "--cfg",
    `providers.llm.ollama.base_url=${server.url}`,
  ];
  const result = await runJpt([...flags, "summarize"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 0, result.stderr);
  const stream = ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  );
  assert.equal(stream.entries[1]!.type, "turn_start");
  assert.equal(stream.turns()[0]!.summary, "Explain the iter_mut segfault");
  // The model was asked with the id the turn got: never a placeholder.
  assert.deepEqual(requestedTurnIds(server.chatRequests[0]!), [
    stream.turns()[0]!.id,
  ]);
  assert.match(
    result.stdout,
    /1 summarized, 0 skipped\n {2}# Turn 1 \([0-9a-z]{7}\): Explain the iter_mut segfault\n/,
  );
});

Deno.test({
  name:
    "jpt summarize --all --json summarizes every completed turn of the real fixtures, touching only turn_start",
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    await using ws = await tempWorkspace();
    await using server = FakeLlm.start(
      summaryResponder((id) =>
        `Summarize the work of turn ${id} in one line please`
      ),
    );
    await configure(ws.root, server.url);
    const befores = new Map<string, Uint8Array>();
    for (const fixture of fixtureConversations()) {
      const dir = await copyConversation(fixture, ws.conversations);
      befores.set(dir, await Deno.readFile(join(dir, "events.json")));
    }
    // The conversations carry their own model and provider config; flags beat that layer.
    const flags = [
      "--cfg",
      'conversation.turn_summary.generate.model:={"id": "ollama/tiny", "context_window": 32768}',
      "--cfg",
      `providers.llm.ollama.base_url=${server.url}`,
    ];
    const result = await runJpt([...flags, "summarize", "--all", "--json"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.ok(
      report.conversations.every((c: { status: string }) => c.status === "ran"),
      result.stdout,
    );
    assert.equal(report.conversations.length, befores.size);
    for (const [dir, before] of befores) {
      const after = await Deno.readFile(join(dir, "events.json"));
      assert.deepEqual(nonTurnStarts(after), nonTurnStarts(before), dir);
      const stream = ConversationStream.parse(after);
      for (const turn of stream.turns()) {
        if (!turn.isComplete()) continue;
        assert.ok(
          turn.summary !== undefined,
          `${dir} turn ${turn.index} has a summary`,
        );
        assert.ok(Array.from(turn.summary).length <= 60);
      }
    }
    const check = await runJpt(["check", "--json"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(check.code, 0, check.stdout);
  },
});

Deno.test("a model server that answers 200 with something else than JSON is one clear line, not a crash", async () => {
  await using llm = FakeLlm.start(() => ({ text: "<html>proxy login</html>" }));
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n`,
  );
  await writeConversation(ws.conversations, "17800000000", simpleTurns("h", 1));
  const result = await runJpt(["summarize"], { cwd: ws.root, env: ws.env });
  assert.equal(result.code, 1);
  const output = result.stdout + result.stderr;
  assert.doesNotMatch(output, /Cannot read properties|run with --verbose/);
  assert.match(output, /not with a chat completion.*proxy login/);
});
