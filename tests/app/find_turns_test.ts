import assert from "node:assert/strict";
import { findTurns, snippet } from "../../src/app/read/find_turns.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { generator } from "../support/seeded.ts";
import { testSession } from "../support/session.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";

function conversation(
  turns: Array<{ label?: string; request: string; response: string }>,
): Uint8Array {
  const entries = turns.flatMap((turn, i) => [
    {
      timestamp: `2026-01-01 00:00:0${i}.0`,
      type: "turn_start",
      event_id: `t${i}`,
      ...(turn.label === undefined ? {} : { summary: turn.label }),
    },
    {
      timestamp: `2026-01-01 00:00:0${i}.1`,
      type: "chat_request",
      content: turn.request,
    },
    {
      timestamp: `2026-01-01 00:00:0${i}.2`,
      type: "chat_response",
      reasoning: "thinking about MUTEX",
    },
    {
      timestamp: `2026-01-01 00:00:0${i}.3`,
      type: "chat_response",
      message: turn.response,
    },
  ]);
  return ConversationStream.parse(
    new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n"),
  ).serialize();
}

Deno.test("findTurns(): summary matches first, smart case, the words as one phrase or each word anywhere, reasoning never searched", async () => {
  await using ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    "17800000001",
    conversation([
      { request: "the lock is slow", response: "use a mutex" },
      {
        label: "Switched from Mutex to RwLock",
        request: "ok",
        response: "done",
      },
    ]),
  );
  const session = testSession(ws);
  const find = (patterns: string[], extra = {}) =>
    findTurns(session, { patterns, regex: false, ...extra });
  const mutex = (await find(["mutex"])).found;
  assert.deepEqual(mutex.map((t) => [t.index, t.matches[0]!.where]), [
    [1, "summary"],
    [0, "response"],
  ]);
  // A capital makes it case-sensitive: only the summary says "Mutex".
  assert.deepEqual((await find(["Mutex"])).found.map((t) => t.index), [1]);
  // The words are one phrase, as jp conversation grep takes them.
  assert.deepEqual(
    (await find(["lock", "is", "slow"])).found.map((t) => t.index),
    [0],
  );
  assert.deepEqual((await find(["slow", "mutex"])).found, []);
  // --all-words: each word anywhere in the turn ("RwLock" holds "lock").
  assert.deepEqual(
    (await find(["lock", "mutex"], { allWords: true })).found.map((t) =>
      t.index
    ),
    [1, 0],
  );
  assert.deepEqual(
    (await find(["slow", "mutex"], { allWords: true })).found.map((t) =>
      t.index
    ),
    [0],
  );
  // Reasoning ("MUTEX") is never searched.
  assert.deepEqual((await find(["thinking"])).found, []);
  // A regular expression.
  assert.deepEqual(
    (await find(["sw.tched|slow"], { regex: true })).found.map((t) => t.index),
    [1, 0],
  );
});

Deno.test("findTurns(): --scope picks the places searched, --limit the most turns, --context the lines around the match", async () => {
  await using ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    "17800000001",
    conversation([
      {
        request: "one\ntwo\nthe mutex line\nfour\nfive",
        response: "mutex too",
      },
      { label: "Mutex summary", request: "ok", response: "done" },
      { request: "a mutex again", response: "fine" },
    ]),
  );
  const session = testSession(ws);
  const find = (extra: Record<string, unknown>) =>
    findTurns(session, { patterns: ["mutex"], regex: false, ...extra });
  const where = async (extra: Record<string, unknown>) =>
    (await find(extra)).found.map((
      t,
    ) => [t.index, t.matches.map((m) => m.where)]);
  assert.deepEqual(await where({ scopes: new Set(["summary"]) }), [[1, [
    "summary",
  ]]]);
  assert.deepEqual(await where({ scopes: new Set(["request"]) }), [
    [2, ["request"]],
    [0, ["request"]],
  ]);
  assert.deepEqual(await where({ scopes: new Set(["response"]) }), [[0, [
    "response",
  ]]]);
  // Summaries first, then the newest: the limit keeps the first two.
  assert.deepEqual((await find({ limit: 2 })).found.map((t) => t.index), [
    1,
    2,
  ]);
  const [first] = (await find({ scopes: new Set(["request"]), context: 1 }))
    .found.filter((t) => t.index === 0);
  assert.deepEqual(first!.matches[0]!.lines, ["two", "the mutex line", "four"]);
  assert.equal((await find({})).found[0]!.matches[0]!.lines, undefined);
});

Deno.test("findTurns(): the look at a whole file never hides a match: escapes, quotes, other conversations passed over", async () => {
  await using ws = await tempWorkspace();
  const text = (turns: Parameters<typeof conversation>[0]) =>
    new TextDecoder().decode(conversation(turns));
  // JSON may write any character as \uXXXX, and "/" as "\/": the file's text
  // then does not hold the word as the request says it.
  await writeConversation(
    ws.conversations,
    "17800000001",
    new TextEncoder().encode(
      text([{ request: "raise the budget", response: "ok" }])
        .replace("budget", "b\\u0075dget"),
    ),
  );
  await writeConversation(
    ws.conversations,
    "17800000002",
    new TextEncoder().encode(
      text([{ request: "see src/main.rs", response: "ok" }])
        .replace("src/main", "src\\/main"),
    ),
  );
  await writeConversation(
    ws.conversations,
    "17800000003",
    conversation([{ request: 'he said "ship it"', response: "fine" }]),
  );
  await writeConversation(
    ws.conversations,
    "17800000004",
    conversation([{ request: "nothing here", response: "no" }]),
  );
  const session = testSession(ws);
  const find = async (patterns: string[]) =>
    (await findTurns(session, { patterns, regex: false, allWords: true }))
      .found.map((turn) => turn.conversation);
  assert.deepEqual(await find(["budget"]), ["jp-c17800000001"]);
  assert.deepEqual(await find(["src/main.rs"]), ["jp-c17800000002"]);
  // A quote is written \" in the file: such a pattern reads every file.
  assert.deepEqual(await find(['"ship it"']), ["jp-c17800000003"]);
  assert.deepEqual(await find(["here", "no"]), ["jp-c17800000004"]);
  assert.deepEqual(await find(["kestrel"]), []);
});

Deno.test("findTurns(): a file is parsed once, and its tool calls read only with the tool scope searched", async () => {
  await using ws = await tempWorkspace();
  const entries = [
    { timestamp: "2026-01-01 00:00:00.0", type: "turn_start", event_id: "t0" },
    {
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: "read the config",
    },
    {
      timestamp: "2026-01-01 00:00:00.2",
      type: "tool_call_request",
      id: "call_1",
      name: "fs_read_file",
      arguments: { path: btoa("jp.toml") },
    },
    {
      timestamp: "2026-01-01 00:00:00.3",
      type: "tool_call_response",
      id: "call_1",
      content: btoa("the kestrel setting"),
      is_error: false,
    },
    {
      timestamp: "2026-01-01 00:00:00.4",
      type: "chat_response",
      message: "the config is read",
    },
  ];
  await writeConversation(
    ws.conversations,
    "17800000001",
    new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n"),
  );
  const session = testSession(ws);
  /** Runs a search, counting the parses of tool entries. */
  const counted = async (pattern: string, scopes?: Set<string>) => {
    const parse = JSON.parse;
    let toolParses = 0;
    JSON.parse = (...args: Parameters<typeof parse>) => {
      if (/"type": "tool_call_/.test(String(args[0]))) toolParses++;
      return parse(...args);
    };
    try {
      const { found } = await findTurns(session, {
        patterns: [pattern],
        regex: false,
        ...(scopes === undefined ? {} : { scopes: scopes as never }),
      });
      return { found: found.map((turn) => turn.matches[0]!.where), toolParses };
    } finally {
      JSON.parse = parse;
    }
  };
  // The whole file's text rules nothing out (the chat matches): the chat
  // is read with one parse of the whole file, tool entries not again.
  assert.deepEqual(await counted("config"), {
    found: ["request"],
    toolParses: 1,
  });
  // With the tool scope the conversation is read through its stream: the
  // result (base64 in the file) is found, each tool entry parsed once.
  assert.deepEqual(
    await counted(
      "kestrel",
      new Set(["summary", "request", "response", "tool"]),
    ),
    { found: ["tool"], toolParses: 2 },
  );
});

Deno.test("snippet() folds each run of whitespace to one space, and keeps text that has none to fold", () => {
  const { chance, int } = generator(5);
  const pieces = [
    "word",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\u00a0",
    "\u2028",
    "\u3000",
    "é",
    "…",
    "x",
  ];
  let kept = 0;
  for (let i = 0; i < 3000; i++) {
    const text = Array.from(
      { length: int(1, 60) },
      // Mostly single spaces between words, as prose has.
      () =>
        chance(0.8)
          ? (chance(0.5) ? "word" : " ")
          : pieces[int(0, pieces.length - 1)]!,
    ).join("");
    const at = int(0, text.length - 1);
    const length = Math.min(text.length - at, int(0, 4));
    const start = Math.max(0, at - 40);
    const end = Math.min(text.length, at + length + 40);
    const expected = `${start > 0 ? "…" : ""}${
      text.slice(start, end).replace(/\s+/g, " ")
    }${end < text.length ? "…" : ""}`;
    assert.equal(snippet(text, at, length), expected, JSON.stringify(text));
    if (text.slice(start, end) === expected.replace(/^…|…$/g, "")) kept++;
  }
  assert.ok(kept > 100 && kept < 2900, `${kept} kept as they were`);
});
