import assert from "node:assert/strict";
import { join } from "node:path";
import {
  eventsOverview,
  turnChats,
  turnHeads,
} from "../../src/conversation/events_overview.ts";
import { readEvent } from "../../src/conversation/events.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { fixtureConversations } from "../support/paths.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const at = (second: number) => `2026-01-01 00:00:${second}.0`;

/** The overview as the stream gives it, or the stream's error message. */
function fromStream(bytes: Uint8Array) {
  try {
    const stream = ConversationStream.parse(bytes);
    return {
      turns: stream.turns().length,
      lastTimestamp: stream.entries.at(-1)?.timestamp,
    };
  } catch (error) {
    return (error as Error).message;
  }
}

function overview(bytes: Uint8Array) {
  try {
    return eventsOverview(bytes);
  } catch (error) {
    return (error as Error).message;
  }
}

Deno.test("eventsOverview() counts turns and finds the last event as the stream does", () => {
  const files = [
    [],
    [{ type: "config_delta", timestamp: at(0), delta: {} }],
    [
      { type: "config_delta", timestamp: at(0), delta: {} },
      { type: "turn_start", timestamp: at(1) },
      { type: "chat_request", timestamp: at(2), content: "a" },
      { type: "turn_start", timestamp: at(3) },
      { type: "config_delta", timestamp: at(4), delta: {} },
    ],
    // Events before any turn_start make the first turn.
    [
      { type: "chat_request", timestamp: at(1), content: "a" },
      { type: "turn_start", timestamp: at(2) },
      { type: "turn_start", timestamp: at(3) },
    ],
  ];
  for (const entries of files) {
    for (
      const text of [JSON.stringify(entries, null, 2), JSON.stringify(entries)]
    ) {
      const bytes = encode(text);
      const expected = fromStream(bytes);
      assert.equal(typeof expected, "object", text);
      assert.deepEqual(overview(bytes), expected, text);
    }
  }
  assert.deepEqual(overview(encode(JSON.stringify(files[3], null, 2))), {
    turns: 3,
    lastTimestamp: at(3),
  });
});

Deno.test("eventsOverview() fails on bad files with the stream's own error", () => {
  const bad = [
    encode("{}"),
    encode('[{"type": "turn_start"}]'),
    encode(`[{"type": 3, "timestamp": "${at(0)}"}]`),
    encode(`[{"type": "turn_start", "timestamp": "${at(0)}", "event_id": 5}]`),
    encode(`[1]`),
    encode(`[{"type": "turn_start", "timestamp": "${at(0)}"}`),
    Uint8Array.of(
      ...encode(`[{"type": "turn_start", "timestamp": "`),
      0xff,
      ...encode(`"}]`),
    ),
  ];
  for (const bytes of bad) {
    const expected = fromStream(bytes);
    assert.equal(typeof expected, "string", new TextDecoder().decode(bytes));
    assert.equal(overview(bytes), expected);
  }
});

Deno.test("eventsOverview() agrees with the stream on real jp conversations", () => {
  for (const dir of fixtureConversations()) {
    const bytes = Deno.readFileSync(join(dir, "events.json"));
    assert.deepEqual(overview(bytes), fromStream(bytes), dir);
  }
});

/** Each turn's head as the stream's turns give it. */
function headsFromStream(bytes: Uint8Array) {
  const stream = ConversationStream.parse(bytes, { keepPayloads: true });
  return stream.turns().map((turn) => {
    const request = turn.events.find((entry) => entry.type === "chat_request")
      ?.data().content;
    return {
      eventId: turn.id,
      summary: turn.summary,
      request: typeof request === "string" ? request : undefined,
    };
  });
}

/** A seeded pseudo-random source and a picker over it. */
function randomSource(seed: number) {
  const next = () =>
    (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return {
    next,
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

/** Entries of every shape both readings see, made at second `t`. */
const SHAPES = [
  (t: number) => ({ type: "turn_start", timestamp: at(t) }),
  (t: number) => ({ type: "turn_start", timestamp: at(t), event_id: `e${t}` }),
  (t: number) => ({
    type: "turn_start",
    timestamp: at(t),
    event_id: `e${t}`,
    summary: `Label ${t}`,
  }),
  (t: number) => ({ type: "chat_request", timestamp: at(t), content: `q${t}` }),
  (t: number) => ({
    type: "tool_call_request",
    timestamp: at(t),
    id: `c${t}`,
    name: "x",
  }),
  (t: number) => ({ type: "config_delta", timestamp: at(t), delta: {} }),
];

Deno.test("turnHeads() gives each turn's id, summary and first request as the stream's turns do", () => {
  const { next, pick } = randomSource(11);
  const makers = [
    ...SHAPES,
    (t: number) => ({ type: "turn_start", timestamp: at(t), event_id: null }),
    (t: number) => ({ type: "turn_start", timestamp: at(t), event_id: "" }),
    (t: number) => ({ type: "turn_start", timestamp: at(t), summary: 7 }),
    (t: number) => ({ type: "chat_request", timestamp: at(t), content: [1] }),
    (t: number) => ({ type: "chat_request", timestamp: at(t) }),
    // Only a turn_start's id and summary are the turn's.
    (t: number) => ({
      type: "chat_request",
      timestamp: at(t),
      event_id: `r${t}`,
      summary: "not a label",
      content: `q${t}`,
    }),
    (t: number) => ({ type: "chat_response", timestamp: at(t), content: "a" }),
  ];
  let compared = 0;
  for (let file = 0; file < 400; file++) {
    const entries = Array.from(
      { length: Math.floor(next() * 14) },
      (_, t) => pick(makers)(t),
    );
    const bytes = encode(JSON.stringify(entries, null, 2));
    assert.deepEqual(turnHeads(bytes), headsFromStream(bytes), `${file}`);
    compared += headsFromStream(bytes).length;
  }
  assert.ok(compared > 1000, `${compared} turns compared`);
});

Deno.test("turnHeads() leaves to the stream what its parser would refuse", () => {
  for (
    const text of [
      "{}",
      '[{"type": "turn_start"}]',
      `[{"type": "turn_start", "timestamp": "${at(0)}", "event_id": 5}]`,
      "[1]",
      `[{"type": "turn_start", "timestamp": "${at(0)}"}`,
      `\uFEFF[{"type": "turn_start", "timestamp": "${at(0)}"}]`,
    ]
  ) {
    assert.equal(turnHeads(encode(text)), undefined, text);
  }
});

Deno.test("turnHeads() agrees with the stream on real jp conversations", () => {
  for (const dir of fixtureConversations()) {
    const bytes = Deno.readFileSync(join(dir, "events.json"));
    assert.deepEqual(turnHeads(bytes), headsFromStream(bytes), dir);
  }
});

/**
 * Each turn's head and chat as the stream's turns and `readEvent` give them,
 * or `undefined` where the stream refuses the file or `readEvent` a chat
 * event (the native reading then leaves the file to the stream).
 */
function chatsFromStream(bytes: Uint8Array) {
  let stream: ConversationStream;
  try {
    stream = ConversationStream.parse(bytes);
  } catch {
    return undefined;
  }
  try {
    return stream.turns().map((turn) => {
      const chat = {
        eventId: turn.id,
        summary: turn.summary,
        request: undefined as string | undefined,
        requests: [] as string[],
        responses: [] as string[],
        reasoning: [] as string[],
      };
      for (const entry of turn.events) {
        if (entry.type !== "chat_request" && entry.type !== "chat_response") {
          continue;
        }
        const event = readEvent(entry);
        if (event?.type === "chat_request") {
          chat.request ??= event.content;
          chat.requests.push(event.content);
        } else if (
          event?.type === "chat_response" && event.text !== undefined
        ) {
          (event.kind === "reasoning" ? chat.reasoning : chat.responses).push(
            event.text,
          );
        }
      }
      return chat;
    });
  } catch {
    return undefined;
  }
}

Deno.test("turnChats() reads each turn's head and chat as the stream's turns and readEvent do, and leaves the rest to the stream", () => {
  const { next, pick } = randomSource(29);
  const makers = [
    ...SHAPES,
    (t: number) => ({ type: "turn_start", timestamp: at(t), summary: null }),
    (t: number) => ({
      type: "chat_request",
      timestamp: at(t),
      content: `r${t}`,
    }),
    (t: number) => ({
      type: "chat_response",
      timestamp: at(t),
      message: `a${t}`,
    }),
    (t: number) => ({
      type: "chat_response",
      timestamp: at(t),
      reasoning: `w${t}`,
    }),
    (t: number) => ({
      type: "chat_response",
      timestamp: at(t),
      data: { x: 1 },
    }),
  ];
  // Chat events readEvent refuses, one entry in twenty.
  const refused = [
    (t: number) => ({ type: "chat_request", timestamp: at(t), content: 3 }),
    (t: number) => ({ type: "chat_request", timestamp: at(t) }),
    (t: number) => ({ type: "chat_response", timestamp: at(t), message: null }),
    (t: number) => ({ type: "chat_response", timestamp: at(t), content: "a" }),
  ];
  let read = 0;
  let left = 0;
  for (let file = 0; file < 600; file++) {
    const entries = Array.from(
      { length: Math.floor(next() * 12) },
      (_, t) => pick(next() < 0.05 ? refused : makers)(t),
    );
    const text = JSON.stringify(entries, null, 2);
    const expected = chatsFromStream(encode(text));
    assert.deepEqual(turnChats(text), expected, `${file}: ${text}`);
    if (expected === undefined) left++;
    else read += expected.length;
  }
  assert.ok(read > 1000 && left > 50, `${read} turns read, ${left} files left`);
  for (
    const text of [
      "{}",
      `[{"type": "turn_start", "timestamp": "${at(0)}", "event_id": 5}]`,
      `\uFEFF[{"type": "turn_start", "timestamp": "${at(0)}"}]`,
      `[{"type": "chat_request", "timestamp": "${
        at(0)
      }", "content": "\uFFFD"}]`,
    ]
  ) {
    assert.equal(turnChats(text), undefined, text);
  }
});

Deno.test("turnChats() agrees with the stream on real jp conversations", () => {
  for (const dir of fixtureConversations()) {
    const bytes = Deno.readFileSync(join(dir, "events.json"));
    const chats = turnChats(new TextDecoder().decode(bytes));
    assert.ok(chats !== undefined, dir);
    assert.deepEqual(chats, chatsFromStream(bytes), dir);
  }
});

/** A config entry of `size` characters: what makes a file large without adding a turn. */
const padding = (t: number, size: number) => ({
  type: "config_delta",
  timestamp: at(t),
  delta: { note: "x".repeat(size) },
});

Deno.test("a large file laid out as jp writes it is read entry by entry, as the stream reads it", () => {
  const { next, pick } = randomSource(43);
  const makers = [
    ...SHAPES,
    (t: number) => ({
      type: "chat_response",
      timestamp: at(t),
      message: `a${t}`,
    }),
  ];
  // Refused by readEvent or by the stream's parser, one entry in forty.
  const refused = [
    (t: number) => ({ type: "chat_request", timestamp: at(t), content: 3 }),
    (t: number) => ({ type: "turn_start", timestamp: at(t), event_id: 5 }),
  ];
  let read = 0;
  let left = 0;
  for (let file = 0; file < 40; file++) {
    const entries: unknown[] = Array.from(
      { length: 1 + Math.floor(next() * 30) },
      (_, t) => pick(next() < 0.025 ? refused : makers)(t),
    );
    // Over the size from which the walk parses entry by entry.
    entries.splice(Math.floor(next() * entries.length), 0, padding(0, 600_000));
    const text = JSON.stringify(entries, null, 2) + (next() < 0.5 ? "\n" : "");
    const bytes = encode(text);
    const chats = chatsFromStream(bytes);
    assert.deepEqual(turnChats(text), chats, `${file}`);
    assert.deepEqual(overview(bytes), fromStream(bytes), `${file}`);
    if (chats === undefined) {
      left++;
      continue;
    }
    assert.deepEqual(turnHeads(bytes), headsFromStream(bytes), `${file}`);
    read += chats.length;
  }
  assert.ok(read > 100 && left > 5, `${read} turns read, ${left} files left`);
});

Deno.test("a large file laid out otherwise, or broken, is left to the stream", () => {
  const entries = [
    padding(0, 600_000),
    { type: "turn_start", timestamp: at(1), event_id: "e1" },
    { type: "chat_request", timestamp: at(2), content: "q" },
  ];
  const native = JSON.stringify(entries, null, 2);
  // Valid JSON the native writer does not lay out so: jp reads it all the same.
  for (
    const text of [JSON.stringify(entries), JSON.stringify(entries, null, 4)]
  ) {
    const bytes = encode(text);
    assert.equal(turnHeads(bytes), undefined);
    assert.equal(turnChats(text), undefined);
    assert.deepEqual(overview(bytes), { turns: 1, lastTimestamp: at(2) });
  }
  // An object inside an entry closed at an entry's indent: the cut is refused.
  const nested = native.replace(
    '"event_id": "e1"',
    '"event_id": "e1",\n    "x": {\n  }',
  );
  assert.deepEqual(JSON.parse(nested)[1].x, {});
  assert.equal(turnHeads(encode(nested)), undefined);
  assert.deepEqual(overview(encode(nested)), fromStream(encode(nested)));
  // Cut short, or with something after the array: the stream's own error.
  for (const text of [native.slice(0, -3), `${native}\n]`, `${native}x`]) {
    const bytes = encode(text);
    assert.equal(turnHeads(bytes), undefined);
    assert.equal(turnChats(text), undefined);
    assert.equal(typeof fromStream(bytes), "string");
    assert.equal(overview(bytes), fromStream(bytes));
  }
});
