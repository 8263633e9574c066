import assert from "node:assert/strict";
import { join } from "node:path";
import { eventsOverview } from "../../src/conversation/events_overview.ts";
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
