import assert from "node:assert/strict";
import {
  beginRead,
  contentKeyMemo,
  MAX_REMEMBERED_CHARS,
  PositionMemo,
  rememberRereads,
} from "../../src/conversation/reread_memory.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { turnContentKey } from "../../src/summary/turn_content_key.ts";

const encoder = new TextEncoder();

/** A file as released jp writes it: `turns` turns of a request and a reply. */
function releasedFile(requests: string[]): Uint8Array {
  const entries = requests.flatMap((content, turn) => [
    { timestamp: `2026-01-01 00:00:${10 + turn}.0`, type: "turn_start" },
    {
      timestamp: `2026-01-01 00:00:${10 + turn}.1`,
      type: "chat_request",
      content,
    },
    {
      timestamp: `2026-01-01 00:00:${10 + turn}.2`,
      type: "chat_response",
      message: `re ${content}`,
    },
  ]);
  return encoder.encode(`${JSON.stringify(entries, null, 2)}\n`);
}

/** What a stream's entries and turns are, compared field by field. */
function shape(stream: ConversationStream) {
  return {
    entries: stream.entries.map((entry) => ({
      text: entry.text,
      type: entry.type,
      timestamp: entry.timestamp,
      eventId: entry.eventId,
    })),
    keys: stream.turns().map(turnContentKey),
  };
}

/** Runs `body` with the memory on, and turns it off after. */
function withMemory(body: () => void): void {
  rememberRereads();
  try {
    body();
  } finally {
    rememberRereads(false);
  }
}

Deno.test("PositionMemo gives a value back only for the same texts at the same position", () => {
  const memo = new PositionMemo<string, number>();
  memo.set(0, "alpha", 1);
  memo.set(1, "beta", 2);
  assert.equal(memo.get(0, "alpha"), 1);
  assert.equal(memo.get(0, "alphb"), undefined, "another text there");
  assert.equal(memo.get(1, "alpha"), undefined, "the text elsewhere");
  assert.equal(memo.get(2, "beta"), undefined);
  const turns = new PositionMemo<readonly string[], string>();
  turns.set(0, ["a", "b"], "key");
  assert.equal(turns.get(0, ["a", "b"]), "key");
  assert.equal(turns.get(0, ["a"]), undefined);
  assert.equal(turns.get(0, ["a", "c"]), undefined);
});

Deno.test("PositionMemo keeps the last read's values until the one after it", () => {
  const memo = new PositionMemo<string, number>();
  memo.set(0, "kept", 1);
  memo.set(1, "dropped", 2);
  memo.nextRead();
  assert.equal(memo.get(0, "kept"), 1, "looked up by the next read");
  memo.nextRead();
  assert.equal(memo.get(0, "kept"), 1, "carried over by the lookup");
  assert.equal(memo.get(1, "dropped"), undefined, "not looked up: gone");
  memo.clear();
  assert.equal(memo.get(0, "kept"), undefined);
});

Deno.test("with the memory on, a file read again gives the same entries and keys as a fresh read", () => {
  const first = releasedFile(["one", "two", "three"]);
  // jp's next save: the same turns and a new one.
  const second = releasedFile(["one", "two", "three", "four"]);
  const fresh = shape(ConversationStream.parse(second));
  withMemory(() => {
    shape(ConversationStream.parse(first));
    assert.deepEqual(shape(ConversationStream.parse(second)), fresh);
    assert.deepEqual(shape(ConversationStream.parse(second)), fresh);
  });
});

Deno.test("with the memory on, a read leaves what it computed for the next read", () => {
  withMemory(() => {
    const stream = ConversationStream.parse(releasedFile(["one", "two"]));
    const turn = stream.turns()[1]!;
    const key = turnContentKey(turn);
    const request = stream.entries[4]!;
    const entries = beginRead(1)!;
    assert.deepEqual(entries.get(4, request.text), {
      type: "chat_request",
      timestamp: request.timestamp,
      eventId: undefined,
      callId: undefined,
    });
    const texts = turn.events.slice(1).map((entry) => entry.text);
    assert.equal(contentKeyMemo()!.get(1, texts), key);
  });
});

Deno.test("with the memory on, an entry or a turn whose text changed in place is read afresh", () => {
  // Same lengths and positions, one character apart: only the text tells.
  const before = releasedFile(["aaaa", "bbbb", "cccc"]);
  const after = releasedFile(["aaaa", "bbxb", "cccc"]);
  const fresh = shape(ConversationStream.parse(after));
  withMemory(() => {
    const old = shape(ConversationStream.parse(before));
    const now = shape(ConversationStream.parse(after));
    assert.deepEqual(now, fresh);
    assert.notEqual(now.keys[1], old.keys[1], "the changed turn's key");
    assert.equal(now.keys[0], old.keys[0]);
  });
  // An entry's timestamp, the same length: its identity follows the text.
  const stamped = new TextDecoder().decode(after).replace(
    '"2026-01-01 00:00:11.1"',
    '"2026-01-01 00:00:11.9"',
  );
  withMemory(() => {
    ConversationStream.parse(after);
    const entry = ConversationStream.parse(encoder.encode(stamped)).entries[4]!;
    assert.equal(entry.timestamp, "2026-01-01 00:00:11.9");
  });
});

Deno.test("the memory is off unless turned on, and keeps nothing of a text that is too large", () => {
  assert.equal(beginRead(10), undefined);
  assert.equal(contentKeyMemo(), undefined);
  withMemory(() => {
    assert.notEqual(beginRead(10), undefined);
    assert.notEqual(contentKeyMemo(), undefined);
    assert.equal(beginRead(MAX_REMEMBERED_CHARS + 1), undefined);
    assert.equal(contentKeyMemo(), undefined);
  });
});
