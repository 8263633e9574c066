import assert from "node:assert/strict";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { EventsSyntaxError } from "../../src/conversation/scan_events.ts";
import { fixtureConversations, testdata } from "../support/paths.ts";

const decoder = new TextDecoder();
const streamFile = (name: string) =>
  Deno.readFileSync(testdata("streams", `${name}.json`));
const golden = (name: string) =>
  Deno.readTextFileSync(testdata("golden", `${name}.json`));
const load = (name: string) => ConversationStream.parse(streamFile(name));
const text = (stream: ConversationStream) => decoder.decode(stream.serialize());

const GENERATIONS = [
  "g0",
  "g1",
  "g2",
  "g3",
  "g4",
  "numbers",
  "escapes",
  "unknown_types",
  "event_ids",
];

Deno.test("ConversationStream round-trips every synthetic generation byte for byte", () => {
  for (const name of GENERATIONS) {
    const bytes = streamFile(name);
    assert.deepEqual(ConversationStream.parse(bytes).serialize(), bytes, name);
  }
});

Deno.test("ConversationStream.turns() follows jp's turn boundaries in each generation", () => {
  const shape = (name: string) =>
    load(name).turns().map((
      turn,
    ) => [turn.id ?? null, turn.events.map((e) => e.type)]);
  assert.deepEqual(shape("g0"), [[null, [
    "chat_request",
    "chat_response",
    "chat_response",
  ]]]);
  assert.equal(
    load("g1").turns().length,
    1,
    "legacy stream without turn_start is one implicit turn",
  );
  assert.deepEqual(load("g2").turns().map((turn) => turn.events.length), [
    7,
    3,
  ]);
  assert.deepEqual(
    load("g3").turns().map((turn) => turn.index),
    [0, 1],
    "a leading turn_start opens turn 0",
  );
  assert.deepEqual(load("g4").turns().map((turn) => [turn.id, turn.summary]), [
    ["k3m9x2a", "Set up project structure with error handling"],
    ["p8q2r4b", undefined],
  ]);
  assert.equal(
    ConversationStream.parse(new TextEncoder().encode("[]\n")).turns().length,
    0,
  );
});

Deno.test("Turn.fallbackSummary() is the first non-empty request line, collapsed", () => {
  assert.equal(
    load("g0").turns()[0]!.fallbackSummary(),
    "Refactor the provider layer",
  );
  assert.equal(load("g4").turns()[1]!.fallbackSummary(), "fix that warning");
  assert.equal(
    load("escapes").turns()[0]!.fallbackSummary(),
    "red and",
    "U+2028 ends the first line",
  );
});

Deno.test("Turn.isComplete() needs a request, a response after the last tool result, and no open tool call", () => {
  assert.deepEqual(load("g3").turns().map((turn) => turn.isComplete()), [
    true,
    false,
  ]);
  assert.deepEqual(load("g4").turns().map((turn) => turn.isComplete()), [
    true,
    true,
  ]);
  assert.equal(load("g1").turns()[0]!.isComplete(), true);
});

Deno.test("setTurnSummary() changes only the turn_start it addresses (golden)", () => {
  const stream = load("g4");
  assert.equal(
    stream.setTurnSummary("p8q2r4b", "Fix the compiler warning"),
    true,
  );
  assert.equal(text(stream), golden("g4_set"));
  assert.equal(stream.turns()[1]!.summary, "Fix the compiler warning");
});

Deno.test("clearTurnSummary() restores the legacy turn_start bytes (golden)", () => {
  const stream = load("g4");
  assert.equal(stream.clearTurnSummary("k3m9x2a"), true);
  assert.equal(text(stream), golden("g4_clear"));
  assert.ok(
    text(stream).includes(
      '"event_id": "k3m9x2a",\n    "timestamp": "2026-10-30 10:00:00.1",\n    "type": "turn_start"\n  }',
    ),
  );
  assert.equal(stream.clearTurnSummary("nope"), false);
});

Deno.test("pop() removes the last event and clears the trailing turn's summary (golden)", () => {
  const stream = load("g4");
  stream.setTurnSummary("p8q2r4b", "Fix the compiler warning");
  const popped = stream.pop();
  assert.equal(popped?.eventId, "resp002");
  assert.equal(stream.turns()[1]!.summary, undefined);
  assert.equal(
    stream.turns()[0]!.summary,
    "Set up project structure with error handling",
  );
  assert.equal(text(stream), golden("g4_set_then_pop"));
  assert.equal(
    stream.entries.at(-1)!.eventId,
    "reset01",
    "trailing non-conversation entries stay",
  );
});

Deno.test("pop() of a turn's own turn_start removes the turn", () => {
  const stream = load("g3");
  stream.pop(); // the second turn's request
  const removed = stream.pop();
  assert.equal(removed?.type, "turn_start");
  assert.equal(stream.turns().length, 1);
  assert.equal(ConversationStream.empty().pop(), undefined);
});

Deno.test("setTurnSummary() refuses unknown ids and blank summaries", () => {
  const stream = load("g4");
  const before = stream.serialize();
  assert.equal(stream.setTurnSummary("chat001", "Not a turn_start"), false);
  assert.equal(stream.setTurnSummary("missing", "Anything"), false);
  assert.equal(stream.setTurnSummary("p8q2r4b", "  \n\u001b[0m "), false);
  assert.deepEqual(stream.serialize(), before);
});

Deno.test("setTurnSummary() normalizes before storing", () => {
  const stream = load("g4");
  stream.setTurnSummary("p8q2r4b", '"Fix the warning."\nAnd then more lines');
  assert.equal(stream.turns()[1]!.summary, "Fix the warning");
});

Deno.test("ensureTurnId() inserts a turn_start into a legacy stream before its first request (golden)", () => {
  const stream = load("g1");
  const id = stream.ensureTurnId(0)!;
  assert.match(id, /^[0-9a-z]{7}$/);
  assert.equal(
    stream.setTurnSummary(id, "Explain the iter_mut segfault"),
    true,
  );
  assert.equal(text(stream).replaceAll(id, "{{ID}}"), golden("g1_summarized"));
  assert.equal(
    stream.entries[0]!.type,
    "config_delta",
    "the legacy base-config delta stays first",
  );
  const reread = ConversationStream.parse(stream.serialize());
  assert.deepEqual(reread.turns().map((turn) => [turn.id, turn.summary]), [[
    id,
    "Explain the iter_mut segfault",
  ]]);
});

Deno.test("ensureTurnId() gives an existing turn_start an id and touches nothing else", () => {
  const original = streamFile("g3");
  const stream = ConversationStream.parse(original);
  const id = stream.ensureTurnId(1)!;
  assert.equal(
    stream.ensureTurnId(1),
    id,
    "the second call returns the same id",
  );
  assert.equal(stream.ensureTurnId(5), undefined);
  const expected = decoder.decode(original).replace(
    '{\n    "timestamp": "2026-04-10 17:05:00.0"',
    `{\n    "event_id": "${id}",\n    "timestamp": "2026-04-10 17:05:00.0"`,
  );
  assert.equal(text(stream), expected);
});

Deno.test("a rewritten entry normalizes numbers like jp and keeps key order (golden)", () => {
  const stream = load("numbers");
  stream.setTurnSummary("num0001", "Keep numbers");
  const out = text(stream);
  assert.equal(out, golden("numbers_summarized"));
  assert.match(out, /"beyond_2_53": 9007199254740993,/);
  assert.match(
    out,
    /"schema": \{"x": 1.50\}/,
    "the untouched entry keeps its bytes",
  );
});

Deno.test("a rewritten entry escapes strings like serde_json (golden)", () => {
  const stream = load("escapes");
  stream.setTurnSummary("esc0001", "Keep escapes");
  const out = text(stream);
  assert.equal(out, golden("escapes_summarized"));
  assert.ok(
    out.includes("\\u001b") && !out.includes("\\u001B"),
    "lowercase hex",
  );
  assert.ok(
    out.includes("\u2028") && out.includes("\u007f") && out.includes("😀 😀"),
    "raw U+2028, DEL and astral",
  );
});

Deno.test("unknown entry types are kept verbatim and belong to no turn", () => {
  const stream = load("unknown_types");
  assert.equal(stream.entries[1]!.type, "future_event");
  assert.equal(stream.entries[1]!.eventId, "middle");
  const id = stream.ensureTurnId(0)!;
  stream.setTurnSummary(id, "Greet");
  assert.ok(
    text(stream).includes('{"type":"future_event"') ||
      text(stream).includes('"first": 1,\n    "event_id": "middle"'),
  );
  assert.deepEqual(stream.turns()[0]!.events.map((e) => e.type), [
    "turn_start",
    "chat_request",
  ]);
});

Deno.test("event ids: missing, null and empty are absent; duplicates are reported; odd strings kept", () => {
  const stream = load("event_ids");
  assert.deepEqual(stream.entries.map((e) => e.eventId), [
    undefined,
    undefined,
    undefined,
    "dup",
    "dup",
    'é☃ "quoted"',
  ]);
  assert.deepEqual(stream.duplicateEventIds(), ["dup"]);
  const id = stream.ensureTurnId(0)!;
  assert.ok(!["dup", 'é☃ "quoted"'].includes(id));
  assert.equal(stream.entries[0]!.eventId, id);
  assert.equal(
    stream.entries[1]!.eventId,
    undefined,
    "only the touched entry gets an id",
  );
});

Deno.test("a non-string event id is a load error naming the byte offset", () => {
  const bytes = new TextEncoder().encode(
    '[\n  {\n    "event_id": 7,\n    "timestamp": "t",\n    "type": "turn_start"\n  }\n]\n',
  );
  assert.throws(
    () => ConversationStream.parse(bytes),
    (error) => error instanceof EventsSyntaxError && error.offset === 4,
  );
});

Deno.test("append() adds an entry with a fresh id in jp's key order", () => {
  const stream = load("g4");
  const entry = stream.append(
    new Map<string, string>([["content", "hi"], ["type", "chat_request"], [
      "timestamp",
      "2026-10-30 10:03:00.0",
    ]]),
  );
  assert.match(entry.eventId!, /^[0-9a-z]{7}$/);
  assert.ok(
    text(stream).endsWith(
      `"type": "config_delta",\n    "op": "reset",\n    "timestamp": "2026-10-30 10:02:00.2"\n  },\n  {\n    "event_id": "${entry.eventId}",\n    "timestamp": "2026-10-30 10:03:00.0",\n    "type": "chat_request",\n    "content": "hi"\n  }\n]\n`,
    ),
  );
  const empty = ConversationStream.empty();
  assert.equal(text(empty), "[]\n");
});

Deno.test("the fast path, the whole-file parse and the full tokenizer read every file the same way", () => {
  const files = GENERATIONS.map((name) => streamFile(name));
  files.push(
    new TextEncoder().encode(
      '[{"timestamp":"t","type":"chat_request","content":"compact \\u00e9 😀"},\n {"type":"x","timestamp":"t"}]',
    ),
  );
  for (const dir of fixtureConversations()) {
    files.push(Deno.readFileSync(`${dir}/events.json`));
  }
  // Natively laid out: the whole-file parse cuts the entries without
  // parsing each; a number or escape the native writer writes otherwise
  // makes it fall back to parsing each entry.
  const native = (values: unknown[]) =>
    new TextEncoder().encode(`${JSON.stringify(values, null, 2)}\n`);
  const entries = [
    {
      event_id: "k3m9x2a",
      timestamp: "2026-01-01 00:00:00.0",
      type: "turn_start",
    },
    {
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: "a\n  }",
    },
    {
      timestamp: "2026-01-01 00:00:00.2",
      type: "x",
      nested: { a: { b: [1, {}] } },
    },
  ];
  files.push(native(entries), native([]));
  const notNative = decoder.decode(native(entries)).replace('"x"', '"\\u0078"');
  files.push(new TextEncoder().encode(notNative));
  let laidOut = 0;
  for (const bytes of files) {
    const fast = ConversationStream.parse(bytes);
    const full = ConversationStream.parse(bytes, { fastPath: false });
    const whole = ConversationStream.parse(bytes, { wholeFile: true });
    const view = (stream: ConversationStream) =>
      stream.entries.map((
        e,
      ) => [e.text, e.type, e.timestamp, e.eventId, e.callId]);
    assert.deepEqual(view(fast), view(full));
    assert.deepEqual(view(whole), view(full));
    assert.deepEqual(
      whole.entries.map((entry) => entry.data()),
      full.entries.map((entry) => entry.data()),
    );
    assert.deepEqual(whole.serialize(), bytes);
    assert.equal(
      whole.laidOutNatively,
      `${JSON.stringify(full.entries.map((e) => e.data()), null, 2)}\n` ===
        decoder.decode(bytes),
    );
    assert.equal(fast.laidOutNatively, false);
    if (whole.laidOutNatively) laidOut++;
    assert.deepEqual(full.serialize(), bytes);
    const id = full.ensureTurnId(0);
    if (id !== undefined) {
      full.setTurnSummary(id, "Same either way");
      fast.ensureTurnId(0);
      const fastId = fast.turns()[0]!.id!;
      fast.setTurnSummary(fastId, "Same either way");
      assert.equal(
        decoder.decode(full.serialize()).replaceAll(id, "ID"),
        decoder.decode(fast.serialize()).replaceAll(fastId, "ID"),
      );
    }
  }
  assert.ok(laidOut >= 3, `${laidOut} files laid out natively`);
});

Deno.test("labelTurn() gives a stripped turn its id and label in one rewrite, preferring the recorded id when free", () => {
  const entries = [
    { timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
    { timestamp: "2026-01-01 00:00:00.1", type: "chat_request", content: "a" },
    { timestamp: "2026-01-01 00:00:00.2", type: "turn_start" },
    { timestamp: "2026-01-01 00:00:00.3", type: "chat_request", content: "b" },
    {
      event_id: "taken01",
      timestamp: "2026-01-01 00:00:00.4",
      type: "chat_response",
      message: "ok",
    },
  ];
  const stream = ConversationStream.parse(
    new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n"),
  );
  const before = stream.revision;
  assert.equal(
    stream.labelTurn(0, "mine001", '  "Fix the parser."  '),
    "mine001",
  );
  assert.equal(stream.revision, before + 1, "one rewrite");
  const first = stream.turns()[0]!;
  assert.equal(first.id, "mine001");
  assert.equal(first.summary, "Fix the parser");
  // The recorded id is taken by another entry: a fresh one is given.
  const id = stream.labelTurn(1, "taken01", "Add tests")!;
  assert.notEqual(id, "taken01");
  assert.match(id, /^[0-9a-z]{7}$/);
  assert.equal(stream.turns()[1]!.summary, "Add tests");
  // A label that normalizes to nothing changes nothing.
  const now = stream.revision;
  assert.equal(stream.labelTurn(1, undefined, "   "), undefined);
  assert.equal(stream.revision, now);
  // The result is what jp writes (event_id first).
  assert.match(
    new TextDecoder().decode(stream.serialize()),
    /\{\n {4}"event_id": "mine001",\n {4}"timestamp": "2026-01-01 00:00:00.0",\n {4}"type": "turn_start",\n {4}"summary": "Fix the parser"\n {2}\}/,
  );
});

Deno.test("ConversationStream.parse() keepPayloads and text: the same entries and bytes", () => {
  const bytes = new TextEncoder().encode(
    JSON.stringify(
      [
        { timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
        {
          timestamp: "2026-01-01 00:00:00.1",
          type: "chat_request",
          content: "hi \u00e9",
        },
      ],
      null,
      2,
    ) + "\n",
  );
  const plain = ConversationStream.parse(bytes);
  for (
    const keepPayloads of [true, new Set(["chat_request"]), new Set<string>()]
  ) {
    const kept = ConversationStream.parse(bytes, { keepPayloads });
    assert.deepEqual(kept.serialize(), bytes);
    assert.deepEqual(
      kept.entries.map((entry) => entry.data()),
      plain.entries.map((entry) => entry.data()),
    );
  }
  // Text already decoded is used as it is.
  const fromText = ConversationStream.parse(bytes, {
    text: new TextDecoder().decode(bytes),
  });
  assert.deepEqual(fromText.serialize(), bytes);
});

Deno.test("parse({ wholeFile }) of JSON nested deeper than the native writer goes parses entry by entry", () => {
  const deep = "[".repeat(20000) + "]".repeat(20000);
  const text =
    `[\n  {\n    "timestamp": "t",\n    "type": "x",\n    "deep": ${deep}\n  }\n]\n`;
  const bytes = new TextEncoder().encode(text);
  const whole = ConversationStream.parse(bytes, { wholeFile: true });
  assert.equal(whole.laidOutNatively, false);
  assert.deepEqual(
    whole.entries.map((entry) => entry.text),
    ConversationStream.parse(bytes).entries.map((entry) => entry.text),
  );
  assert.deepEqual(whole.serialize(), bytes);
});

Deno.test("appending keeps every byte read and lays the new entries out as jp does: the same file as writing every entry anew, for jp's files", () => {
  const joined = (stream: ConversationStream) =>
    `[\n  ${stream.entries.map((entry) => entry.text).join(",\n  ")}\n]\n`;
  const files = [
    ...GENERATIONS.map(streamFile),
    ...fixtureConversations().map((dir) =>
      Deno.readFileSync(`${dir}/events.json`)
    ),
  ];
  for (const bytes of files) {
    const stream = ConversationStream.parse(bytes);
    if (stream.entries.length === 0) continue;
    stream.appendEvent({
      timestamp: "2026-12-04 00:00:00.0",
      type: "turn_start",
    });
    stream.appendEvent({
      timestamp: "2026-12-04 00:00:00.1",
      type: "chat_request",
      content: "one more ✓",
    });
    const written = stream.serialize();
    // What was read stays, byte for byte, up to its last entry.
    const read = ConversationStream.parse(bytes).entries;
    const lastEnd = decoder.decode(bytes).lastIndexOf(read.at(-1)!.text) +
      read.at(-1)!.text.length;
    const prefix = new TextEncoder().encode(
      decoder.decode(bytes).slice(0, lastEnd),
    );
    assert.deepEqual(written.subarray(0, prefix.length), prefix);
    assert.deepEqual(
      JSON.parse(decoder.decode(written)),
      [
        ...JSON.parse(decoder.decode(bytes)),
        ...stream.entries.slice(-2).map((
          entry,
        ) => JSON.parse(entry.text)),
      ],
    );
    // A file jp laid out: exactly what writing every entry anew gives.
    if (decoder.decode(bytes) === joined(ConversationStream.parse(bytes))) {
      assert.equal(decoder.decode(written), joined(stream));
    }
  }
});

Deno.test("appending to a file laid out by hand keeps its layout for what was read; a label on an old turn and a pop write the right file", () => {
  const bytes = new TextEncoder().encode(
    '[{"timestamp":"t0","type":"turn_start","event_id":"a1"},{"timestamp":"t1","type":"chat_request","content":"hi"},\n' +
      '{"timestamp":"t2","type":"chat_response","message":"yo"}]',
  );
  const stream = ConversationStream.parse(bytes);
  stream.appendEvent({ timestamp: "t3", type: "turn_start" });
  stream.appendEvent({
    timestamp: "t4",
    type: "chat_request",
    content: "again",
  });
  stream.labelTurn(0, undefined, "Greeted");
  const written = decoder.decode(stream.serialize());
  // The entries read and their separators as they were; the label's entry
  // and the new ones as jp writes them.
  assert.ok(
    written.includes(
      '},{"timestamp":"t1","type":"chat_request","content":"hi"},\n{"timestamp":"t2","type":"chat_response","message":"yo"},\n  {\n    "event_id": ',
    ),
    written,
  );
  assert.ok(written.startsWith('[{\n    "event_id": "a1",'), written);
  assert.ok(written.endsWith('"content": "again"\n  }\n]\n'), written);
  const reread = ConversationStream.parse(new TextEncoder().encode(written));
  assert.deepEqual(reread.turns().map((turn) => turn.summary), [
    "Greeted",
    undefined,
  ]);
  assert.equal(reread.entries.length, 5);
  stream.pop();
  const popped = ConversationStream.parse(stream.serialize());
  assert.equal(popped.entries.length, 4);
  assert.equal(popped.entries.at(-1)!.type, "turn_start");
});
