import assert from "node:assert/strict";
import { ConversationStream } from "../../src/conversation/stream.ts";
import {
  turnContentKeys,
  turnContentText,
} from "../../src/summary/turn_content_key.ts";
import { nodeCryptoPartsHasher, sha256Hex } from "../../src/platform/sha256.ts";

const encoder = new TextEncoder();

/** A released jp's file: no ids, no labels. */
function releasedStream(): ConversationStream {
  const at = (n: number) => `2026-01-01 00:00:0${n}.0`;
  return ConversationStream.parse(encoder.encode(
    JSON.stringify(
      [
        { timestamp: at(0), type: "turn_start" },
        { timestamp: at(1), type: "chat_request", content: "first" },
        { timestamp: at(2), type: "chat_response", message: "one" },
        { timestamp: at(3), type: "turn_start" },
        { timestamp: at(4), type: "chat_request", content: "second" },
      ],
      null,
      2,
    ) + "\n",
  ));
}

/** Each turn's key, computed from a fresh parse of the stream's bytes. */
function freshKeys(stream: ConversationStream): Promise<string[]> {
  return turnContentKeys(ConversationStream.parse(stream.serialize()).turns());
}

Deno.test("a turn's content key stays right while its turn_start gains an id and a label in place", async () => {
  const stream = releasedStream();
  const before = await turnContentKeys(stream.turns());
  stream.labelTurn(0, undefined, "Say the first thing");
  stream.ensureTurnId(1);
  assert.deepEqual(await turnContentKeys(stream.turns()), before);
  assert.deepEqual(await freshKeys(stream), before);
});

Deno.test("a turn whose content changed gets the key of its new content", async () => {
  const stream = releasedStream();
  const before = await turnContentKeys(stream.turns());
  stream.appendEvent({
    type: "chat_response",
    timestamp: "2026-01-01 00:00:05.0",
    message: "two",
  });
  const after = await turnContentKeys(stream.turns());
  assert.equal(after[0], before[0]);
  assert.notEqual(after[1], before[1]);
  assert.deepEqual(after, await freshKeys(stream));
});

Deno.test("a content key is pinned: the same digest as ever, whichever hasher makes it and whatever ids the entries carry", async () => {
  const bytes = encoder.encode(
    JSON.stringify(
      [
        {
          event_id: "s1",
          timestamp: "2026-01-01 00:00:00.0",
          type: "turn_start",
        },
        {
          event_id: "r1",
          timestamp: "2026-01-01 00:00:01.0",
          type: "chat_request",
          content: "héllo 😀",
        },
        {
          timestamp: "2026-01-01 00:00:02.0",
          type: "chat_response",
          message: "one",
        },
      ],
      null,
      2,
    ) + "\n",
  );
  const turn = ConversationStream.parse(bytes).turns()[0]!;
  // The text a key hashes: a version line, then each event but the
  // turn_start as written, without its event_id member, one per line.
  const expected = [
    "jpt-turn-content-2",
    '{\n    "timestamp": "2026-01-01 00:00:01.0",\n    "type": "chat_request",\n    "content": "héllo 😀"\n  }',
    '{\n    "timestamp": "2026-01-01 00:00:02.0",\n    "type": "chat_response",\n    "message": "one"\n  }',
  ].join("\n");
  assert.equal(turnContentText(turn), expected);
  const digest = await sha256Hex(expected);
  assert.deepEqual(await turnContentKeys([turn]), [digest]);
  const fresh = ConversationStream.parse(bytes).turns()[0]!;
  assert.deepEqual(
    await turnContentKeys([fresh], { hasher: await nodeCryptoPartsHasher() }),
    [digest],
  );
});
