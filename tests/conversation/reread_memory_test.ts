import assert from "node:assert/strict";
import {
  MAX_REMEMBERED_CHARS,
  PositionMemo,
  RereadMemory,
} from "../../src/conversation/reread_memory.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import {
  turnContentKey,
  turnContentKeys,
} from "../../src/summary/turn_content_key.ts";

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

/** What a file's entries and turns are, read with `memory`, field by field. */
async function shape(bytes: Uint8Array, memory?: RereadMemory) {
  const stream = ConversationStream.parse(bytes, { memory });
  return {
    entries: stream.entries.map((entry) => ({
      text: entry.text,
      type: entry.type,
      timestamp: entry.timestamp,
      eventId: entry.eventId,
    })),
    keys: await turnContentKeys(stream.turns(), { memory }),
  };
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

Deno.test("with a memory, a file read again gives the same entries and keys as a fresh read", async () => {
  const first = releasedFile(["one", "two", "three"]);
  // jp's next save: the same turns and a new one.
  const second = releasedFile(["one", "two", "three", "four"]);
  const fresh = await shape(second);
  const memory = new RereadMemory();
  await shape(first, memory);
  assert.deepEqual(await shape(second, memory), fresh);
  assert.deepEqual(await shape(second, memory), fresh);
});

Deno.test("with a memory, a read leaves what it computed for the next read", async () => {
  const memory = new RereadMemory();
  const stream = ConversationStream.parse(releasedFile(["one", "two"]), {
    memory,
  });
  const turn = stream.turns()[1]!;
  const [, key] = await turnContentKeys(stream.turns(), { memory });
  assert.equal(key, await turnContentKey(turn));
  const request = stream.entries[4]!;
  const entries = memory.beginRead(1)!;
  assert.deepEqual(entries.get(4, request.text), {
    type: "chat_request",
    timestamp: request.timestamp,
    eventId: undefined,
    callId: undefined,
  });
  const texts = turn.events.slice(1).map((entry) => entry.text);
  assert.equal(memory.contentKeys()!.get(1, texts), key);
});

Deno.test("with a memory, an entry or a turn whose text changed in place is read afresh", async () => {
  // Same lengths and positions, one character apart: only the text tells.
  const before = releasedFile(["aaaa", "bbbb", "cccc"]);
  const after = releasedFile(["aaaa", "bbxb", "cccc"]);
  const fresh = await shape(after);
  const memory = new RereadMemory();
  const old = await shape(before, memory);
  const now = await shape(after, memory);
  assert.deepEqual(now, fresh);
  assert.notEqual(now.keys[1], old.keys[1], "the changed turn's key");
  assert.equal(now.keys[0], old.keys[0]);
  // An entry's timestamp, the same length: its identity follows the text.
  const stamped = new TextDecoder().decode(after).replace(
    '"2026-01-01 00:00:11.1"',
    '"2026-01-01 00:00:11.9"',
  );
  const again = new RereadMemory();
  ConversationStream.parse(after, { memory: again });
  const entry = ConversationStream.parse(encoder.encode(stamped), {
    memory: again,
  }).entries[4]!;
  assert.equal(entry.timestamp, "2026-01-01 00:00:11.9");
});

Deno.test("a memory keeps nothing of a text that is too large, and a read without one remembers nothing", async () => {
  const memory = new RereadMemory();
  assert.equal(memory.contentKeys(), undefined, "no read yet");
  assert.notEqual(memory.beginRead(10), undefined);
  assert.notEqual(memory.contentKeys(), undefined);
  assert.equal(memory.beginRead(MAX_REMEMBERED_CHARS + 1), undefined);
  assert.equal(memory.contentKeys(), undefined);
  // Another reader's parse, with no memory, leaves this one's untouched.
  const bytes = releasedFile(["one"]);
  const mine = new RereadMemory();
  await shape(bytes, mine);
  await shape(releasedFile(["other"]));
  const texts = ConversationStream.parse(bytes).turns()[0]!.events.slice(1)
    .map((entry) => entry.text);
  assert.notEqual(mine.contentKeys()!.get(0, texts), undefined);
});
