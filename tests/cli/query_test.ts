/**
 * `jpt query` through the real entry point against a loopback server.
 *
 * Test hook: `JPT_DRAIN_BUDGET_MS` (see `src/cli/query.ts`) shortens the
 * background-task drain budget so the budget path runs without slow tests.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt, spawnJpt } from "../support/cli.ts";
import {
  chatCompletion,
  FakeLlm,
  type RecordedRequest,
  type Responder,
  summaryResponder,
} from "../support/fake_llm.ts";
import { tempWorkspace } from "../support/workspace.ts";
import { HAS_SCRIPT } from "../support/pty.ts";
import { JPT_ENTRY } from "../support/paths.ts";

const isSummary = (request: RecordedRequest) =>
  ((request.body?.messages as Array<{ content: string }> | undefined)?.[0]
    ?.content ?? "").startsWith("You label the turns");
const isTitle = (request: RecordedRequest) =>
  ((request.body?.messages as Array<{ content: string }> | undefined)?.[0]
    ?.content ?? "").includes("Title Generation");

/** A server that streams `reply` for chat turns and answers summaries and titles. */
function llm(
  options: {
    reply?: string[];
    pieceDelayMs?: number;
    summary?: Responder;
    title?: string;
  } = {},
): FakeLlm {
  return FakeLlm.start((request) => {
    if (!request.path.endsWith("/chat/completions")) return { status: 404 };
    if (request.body?.stream) {
      return {
        stream: {
          pieces: options.reply ?? ["Hello", " there."],
          pieceDelayMs: options.pieceDelayMs ?? 0,
        },
      };
    }
    if (isTitle(request)) {
      return {
        json: chatCompletion(
          JSON.stringify({ titles: [options.title ?? "Greeting the world"] }),
        ),
      };
    }
    return (options.summary ?? summaryResponder())(request);
  });
}

async function setUp(server: FakeLlm, extra = "") {
  const ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n${extra}`,
  );
  const query = (args: string[], env: Record<string, string> = {}) =>
    runJpt(["query", ...args], { cwd: ws.root, env: { ...ws.env, ...env } });
  const conversationDir = () => {
    const names = [...Deno.readDirSync(ws.conversations)].map((item) =>
      item.name
    );
    assert.equal(names.length, 1, names.join(", "));
    return join(ws.conversations, names[0]!);
  };
  const stream = async () =>
    ConversationStream.parse(
      await Deno.readFile(join(await conversationDir(), "events.json")),
    );
  return { ws, query, conversationDir, stream };
}

Deno.test("jpt query streams the reply, stores the turn, and summarizes it during the next query", async () => {
  await using server = llm();
  const { ws, query, stream, conversationDir } = await setUp(server);
  await using _ = ws;
  const first = await query(["--no-title", "say", "hi"]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, "Hello there.\n");
  let turns = (await stream()).turns();
  assert.equal(turns.length, 1);
  assert.equal(
    turns[0]!.summary,
    undefined,
    "turn 1 has no summary after its own query",
  );
  assert.deepEqual(turns[0]!.events.map((e) => e.type), [
    "turn_start",
    "chat_request",
    "chat_response",
  ]);
  assert.ok(
    turns[0]!.events.every((e) => /^[0-9a-z]{7}$/.test(e.eventId ?? "")),
    "every new entry has an event id",
  );
  assert.equal(server.chatRequests.filter(isSummary).length, 0);

  const second = await query(["and again"]);
  assert.equal(second.code, 0, second.stderr);
  turns = (await stream()).turns();
  assert.equal(turns[0]!.summary, `Summarize turn ${turns[0]!.id}`);
  assert.equal(turns[1]!.summary, undefined);
  const chat = server.chatRequests.filter((r) => r.body?.stream).at(-1)!;
  assert.deepEqual(chat.body!.messages, [
    { role: "user", content: "say hi" },
    { role: "assistant", content: "Hello there." },
    { role: "user", content: "and again" },
  ]);
  const dir = await conversationDir();
  assert.deepEqual([...Deno.readDirSync(dir)].map((f) => f.name).sort(), [
    "base_config.json",
    "events.json",
    "metadata.json",
  ]);
  const check = await runJpt(["check", dir], { cwd: ws.root, env: ws.env });
  assert.equal(check.code, 0, check.stdout);
  const baseConfig = JSON.parse(
    await Deno.readTextFile(join(dir, "base_config.json")),
  );
  assert.equal(
    baseConfig.conversation.turn_summary,
    undefined,
    "no key released jp would strip",
  );
  assert.ok(baseConfig.conversation.title !== undefined);
});

Deno.test({
  name:
    "the summary request overlaps the turn and finishes before the process exits",
  ignore: !HAS_SCRIPT,
}, async () => {
  await using server = llm({
    reply: ["one ", "two ", "three ", "four"],
    pieceDelayMs: 150,
    summary: (request) => ({
      ...summaryResponder()(request) as object,
      delayMs: 200,
    }),
  });
  const { ws, query, stream } = await setUp(server);
  await using _ = ws;
  await query(["--no-title", "first"]);
  // A pseudo-terminal for stderr, so the finishing-tasks line would show if jpt waited.
  const result = await new Deno.Command("script", {
    args: [
      "-qec",
      `${Deno.execPath()} run -A --quiet ${JPT_ENTRY} query second`,
      "/dev/null",
    ],
    cwd: ws.root,
    // The drain (detach off): the summary is asked here, overlapping the turn.
    env: {
      ...ws.env,
      NO_COLOR: "1",
      JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_DETACH: "false",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const exitedAt = performance.now();
  const output = new TextDecoder().decode(result.stdout);
  assert.equal(result.code, 0, output);
  assert.ok(!output.includes("Finishing background tasks"), output);
  const summary = server.chatRequests.find(isSummary)!;
  const turn = server.chatRequests.filter((r) => r.body?.stream).at(-1)!;
  assert.ok(
    summary.receivedAt < turn.answeredAt!,
    "the summary request starts before the chat stream ends",
  );
  assert.ok(
    summary.answeredAt! < exitedAt,
    "and is answered before the process exits",
  );
  assert.ok((await stream()).turns()[0]!.summary !== undefined);
});

Deno.test("a turn edited on disk while its summary is in flight keeps no summary, and the next query fixes it", async () => {
  const { ConversationLock } = await import("../../src/workspace/lock.ts");
  let dir = "";
  let lockFile = "";
  let edited = false;
  await using server = llm({
    summary: async (request) => {
      if (!edited) {
        edited = true;
        // Like jp would: wait for the query to release the lock, then edit turn 1 under the lock.
        let lock;
        for (let i = 0; i < 500 && lock === undefined; i++) {
          lock = await ConversationLock.acquire(lockFile).catch(() =>
            new Promise<undefined>((r) => setTimeout(() => r(undefined), 10))
          );
        }
        const path = join(dir, "events.json");
        await Deno.writeTextFile(
          path,
          (await Deno.readTextFile(path)).replace(
            '"content": "first"',
            '"content": "first, edited"',
          ),
        );
        await lock!.release();
      }
      return summaryResponder()(request);
    },
  });
  const { ws, query, stream, conversationDir } = await setUp(server);
  // This test is about the drain (detach = false keeps it in the query).
  await Deno.writeTextFile(
    join(ws.root, ".jp", "jpt.toml"),
    "[conversation.turn_summary.generate]\ndetach = false\n",
  );
  await using _ = ws;
  await query(["--no-title", "first"]);
  dir = await conversationDir();
  lockFile = join(
    ws.root,
    ".jp",
    "locks",
    `jp-c${dir.split("/").at(-1)!.split("-")[0]}.lock`,
  );
  const second = await query(["second"], { JPT_DRAIN_BUDGET_MS: "5000" });
  assert.equal(second.code, 0, second.stderr);
  let turns = (await stream()).turns();
  assert.ok(
    (await Deno.readTextFile(join(dir, "events.json"))).includes(
      "first, edited",
    ),
  );
  assert.equal(
    turns[0]!.summary,
    undefined,
    "the changed turn stays without a summary",
  );
  await query(["third"]);
  turns = (await stream()).turns();
  assert.ok(turns[0]!.summary !== undefined && turns[1]!.summary !== undefined);
  assert.equal(server.chatRequests.filter(isSummary).length, 2);
});

Deno.test("summary failures never change the query's output or exit code", async () => {
  const faults: Array<[string, Responder, Record<string, string>]> = [
    [
      "http 500",
      () => ({ status: 500, json: { error: { message: "boom" } } }),
      {},
    ],
    [
      "garbage",
      () => ({ json: chatCompletion("\u001b[31m not json at all") }),
      {},
    ],
    ["hang", () => ({ hang: true }), { JPT_DRAIN_BUDGET_MS: "300" }],
  ];
  for (const [name, summary, env] of faults) {
    await using server = llm({ summary });
    const { ws, query, stream } = await setUp(server);
    await using _ = ws;
    await query(["--no-title", "first"]);
    const result = await query(["second"], env);
    assert.equal(result.code, 0, `${name}: ${result.stderr}`);
    assert.equal(result.stdout, "Hello there.\n", name);
    // Only the line naming the conversation continued (none was named).
    assert.match(result.stderr, /^continuing jp-c\d+\n$/, name);
    const turns = (await stream()).turns();
    assert.equal(turns.length, 2, name);
    assert.equal(turns[0]!.summary, undefined, name);
    if (name === "hang") {
      const request = server.chatRequests.find(isSummary)!;
      for (let i = 0; i < 100 && request.abortedAt === undefined; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.ok(
        request.abortedAt !== undefined,
        "the server saw the disconnect at the shortened budget",
      );
    }
  }
});

Deno.test("a held lock at sync skips the summary without touching the query", async () => {
  const { ConversationLock } = await import("../../src/workspace/lock.ts");
  await using server = llm();
  const { ws, query, stream, conversationDir } = await setUp(server);
  await using _ = ws;
  await query(["--no-title", "first"]);
  const id = (await conversationDir()).split("/").at(-1)!.split("-")[0];
  const lockFile = join(ws.root, ".jp", "locks", `jp-c${id}.lock`);
  let holder: { release(): Promise<void> } | undefined;
  server.respond(async (request) => {
    if (request.body?.stream) return { stream: { pieces: ["ok"] } };
    if (!request.path.endsWith("/chat/completions")) return { status: 404 };
    // Another process takes the lock as soon as the query releases it, and keeps it past the sync.
    for (let i = 0; i < 500 && holder === undefined; i++) {
      holder = await ConversationLock.acquire(lockFile).catch(() =>
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 10))
      );
    }
    return summaryResponder()(request);
  });
  const result = await query(["second"], { JPT_DRAIN_BUDGET_MS: "5000" });
  await holder?.release();
  assert.ok(holder !== undefined, "the other process got the lock");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "ok\n");
  assert.equal((await stream()).turns()[0]!.summary, undefined);
});

Deno.test("--no-persist writes nothing and auto = false sends no summary request", async () => {
  await using server = llm();
  const { ws, query, stream } = await setUp(
    server,
    "[conversation.turn_summary.generate]\nauto = false\n",
  );
  await using _ = ws;
  await query(["--no-title", "first"]);
  const before = (await stream()).serialize();
  const ephemeral = await query(["--no-persist", "just asking"]);
  assert.equal(ephemeral.code, 0, ephemeral.stderr);
  assert.equal(ephemeral.stdout, "Hello there.\n");
  assert.deepEqual((await stream()).serialize(), before, "nothing written");
  await query(["second"]);
  assert.equal(
    server.chatRequests.filter(isSummary).length,
    0,
    "auto = false: no summary request",
  );
  assert.equal((await stream()).turns().length, 2);
});

Deno.test("titles: a leading heading names the conversation, otherwise the title model does", async () => {
  await using server = llm({ title: '  "Greeting the world"\nextra line' });
  const heading = await setUp(server);
  await using _ = heading.ws;
  const result = await heading.query([
    "# Fix the `iter_mut` segfault\n\nIt crashes.",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const dir = await heading.conversationDir();
  assert.match(dir, /\/\d+-fix-the--iter-mut--segfault$/);
  assert.equal(
    JSON.parse(await Deno.readTextFile(join(dir, "metadata.json"))).title,
    "Fix the `iter_mut` segfault",
  );
  assert.equal(
    server.chatRequests.filter(isTitle).length,
    0,
    "no title request",
  );

  const generated = await setUp(server);
  await using __ = generated.ws;
  const second = await generated.query(["hello"]);
  assert.equal(second.code, 0, second.stderr);
  const titled = await generated.conversationDir();
  assert.match(titled, /\/\d+-greeting-the-world$/);
  assert.equal(
    JSON.parse(await Deno.readTextFile(join(titled, "metadata.json"))).title,
    "Greeting the world",
  );
});

Deno.test("Ctrl-C mid-stream keeps the partial reply and exits 130", async () => {
  await using server = llm({
    reply: ["partial ", "reply ", "that ", "never ", "ends"],
    pieceDelayMs: 400,
  });
  const { ws, stream } = await setUp(server);
  await using _ = ws;
  const child = spawnJpt(["query", "--no-title", "tell me a story"], {
    cwd: ws.root,
    env: ws.env,
  });
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /partial/);
  child.kill("SIGINT");
  reader.releaseLock();
  const output = await child.output();
  assert.equal(output.code, 130);
  const turn = (await stream()).turns()[0]!;
  const reply = turn.events.find((e) => e.type === "chat_response")!.data()
    .message as string;
  assert.ok(reply.startsWith("partial"), reply);
  assert.ok(!reply.includes("ends"));
});

Deno.test("model failures are one clear line and exit 1; a turn that cannot start writes nothing, a request that failed is kept", async () => {
  await using server = llm();
  const { ws, query, stream } = await setUp(server);
  await using _ = ws;
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    '[assistant.model]\nid = "openai/gpt-x"\n',
  );
  const noKey = await query(["--no-title", "hello"]);
  assert.equal(noKey.code, 1);
  assert.equal(
    noKey.stderr,
    "error: No API key for openai: set the environment variable OPENAI_API_KEY\n",
  );
  assert.deepEqual(
    [...Deno.readDirSync(ws.conversations)],
    [],
    "a turn that cannot start writes nothing",
  );

  // A request that started and failed is kept.
  const refused = await query([
    "--new",
    "--model",
    "ollama/tiny",
    "--cfg",
    "providers.llm.ollama.base_url=http://127.0.0.1:9",
    "again",
  ]);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /^error: Cannot reach ollama at http:\/\/127\.0\.0\.1:9\/v1/,
  );
  // A port nothing listens on: the error names the cause in words.
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const nobody = await query([
    "--model",
    "ollama/tiny",
    "--cfg",
    `providers.llm.ollama.base_url=http://127.0.0.1:${closedPort}`,
    "still there?",
  ]);
  assert.equal(nobody.code, 1);
  assert.match(
    nobody.stderr,
    /^continuing jp-c\d+\nerror: Cannot reach ollama at http:\/\/127\.0\.0\.1:\d+\/v1: connection refused \(nothing listens there\)/,
  );
  assert.match(nobody.stderr, /\nyour message is kept in jp-c\d+\n/);

  server.respond(() => ({
    status: 404,
    json: { error: { message: "model 'tiny' not found" } },
  }));
  const unknown = await query([
    "--model",
    "ollama/tiny",
    "--cfg",
    `providers.llm.ollama.base_url=${server.url}`,
    "once more",
  ]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /ollama does not know model "tiny" \(HTTP 404 from .*\): model 'tiny' not found/,
  );
  assert.deepEqual(
    (await stream()).turns().map((turn) => turn.fallbackSummary()),
    ["again", "still there?", "once more"],
  );
});

Deno.test("a reply that stalls is given up after the idle timeout: partial reply kept, exit 1", async () => {
  await using server = FakeLlm.start((request) =>
    request.body?.stream
      ? { stream: { pieces: ["Half an"], stallAfterMs: 60_000 } }
      : { json: chatCompletion("{}") }
  );
  const { ws, query, stream } = await setUp(server);
  await using _ = ws;
  const result = await query(["--no-title", "hello"], {
    JPT_IDLE_TIMEOUT_SECS: "0.3",
  });
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, "Half an\n");
  assert.match(
    result.stderr,
    /^error: The model sent nothing for 0\.3 s; the partial reply is kept/,
  );
  const turns = (await stream()).turns();
  assert.deepEqual(
    turns[0]!.events.map((event) => event.type),
    ["turn_start", "chat_request", "chat_response"],
  );
});

Deno.test("three jpt query --new started together make three conversations, every message saved", async () => {
  await using server = llm({ pieceDelayMs: 50 });
  const { ws } = await setUp(server);
  await using _ = ws;
  const results = await Promise.all(
    ["first", "second", "third"].map((word) =>
      runJpt(["query", "--new", "--no-title", word], {
        cwd: ws.root,
        env: ws.env,
      })
    ),
  );
  for (const result of results) assert.equal(result.code, 0, result.stderr);
  const dirs = [...Deno.readDirSync(ws.conversations)].map((item) => item.name);
  assert.equal(dirs.length, 3, dirs.join(", "));
  const requests = await Promise.all(dirs.map(async (name) => {
    const stream = ConversationStream.parse(
      await Deno.readFile(join(ws.conversations, name, "events.json")),
    );
    return stream.turns()[0]!.events.find((e) => e.type === "chat_request")!
      .data().content;
  }));
  assert.deepEqual(requests.sort(), ["first", "second", "third"]);
});

Deno.test("a reader that closes stdout early (| head -c5) never keeps the reply from being stored", async () => {
  await using server = llm({
    reply: ["Hello", " there,", " and", " more"],
    pieceDelayMs: 150,
  });
  const { ws, stream } = await setUp(server);
  await using _ = ws;
  const child = spawnJpt(["query", "--new", "--no-title", "hi"], {
    cwd: ws.root,
    env: ws.env,
  });
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.ok(value !== undefined && value.length > 0);
  await reader.cancel();
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  assert.equal(status.code, 0, stderr);
  const turn = (await stream()).turns()[0]!;
  const response = turn.events.find((e) => e.type === "chat_response");
  assert.equal(response?.data().message, "Hello there, and more");
});

Deno.test("a new conversation that cannot start leaves no directory behind", async () => {
  await using server = llm();
  const { ws } = await setUp(server);
  await using _ = ws;
  const result = await queryOpenAi(ws.root, ws.env);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /OPENAI_API_KEY/);
  assert.deepEqual([...Deno.readDirSync(ws.conversations)], []);
});

function queryOpenAi(cwd: string, env: Record<string, string>) {
  return runJpt(["--model", "openai/gpt-test", "query", "--new", "hello"], {
    cwd,
    env,
  });
}

Deno.test("a rate-limited reply waiting longer than the idle timeout is retried, not reported as silence", async () => {
  let refused = false;
  await using server = FakeLlm.start((request) => {
    if (request.body?.stream && !refused) {
      refused = true;
      return {
        status: 429,
        headers: { "retry-after": "1" },
        json: { error: { message: "slow down" } },
      };
    }
    return request.body?.stream
      ? { stream: { pieces: ["After the wait."] } }
      : summaryResponder()(request);
  });
  const { ws, query } = await setUp(server);
  await using _ = ws;
  const result = await query(["--new", "--no-title", "hello"], {
    JPT_IDLE_TIMEOUT_SECS: "0.5",
    JPT_MODEL_RETRIES: "2",
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "After the wait.\n");
});

Deno.test("a model server that answers a streamed request with 200 and no event stream is one clear error, exit 1, not a silent empty reply", async () => {
  for (
    const answer of [{ json: { ok: true } }, {
      text: "<html>proxy login</html>",
    }]
  ) {
    await using llm = FakeLlm.start(() => answer);
    await using ws = await tempWorkspace();
    await Deno.writeTextFile(
      join(ws.root, ".jp", "config.toml"),
      `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n`,
    );
    const result = await runJpt(["query", "--new", "hello"], {
      cwd: ws.root,
      env: ws.env,
    });
    const output = result.stdout + result.stderr;
    assert.equal(result.code, 1, output);
    assert.match(output, /not an event stream/);
    assert.doesNotMatch(output, /run with --verbose|Uncaught/);
  }
});

Deno.test("jpt query -n with --id is a usage error, as jp's query makes them conflict (exit 2, nothing written)", async () => {
  await using ws = await tempWorkspace();
  const result = await runJpt(["query", "-n", "--id", "last", "hello"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--new \(-n\) and --id cannot be used together/);
  assert.deepEqual([...Deno.readDirSync(ws.conversations)], []);
});
