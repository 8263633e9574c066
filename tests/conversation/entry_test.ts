import assert from "node:assert/strict";
import { Entry, labelledTurnStart } from "../../src/conversation/entry.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { generateConversation } from "../../bench/generate.ts";
import { releasedJpBytes } from "../support/workspace.ts";

/** The general way: the ordered tree, written as jp writes it. */
function throughTree(start: Entry, id: string, summary: string): string {
  const tree = start.tree();
  tree.set("event_id", id);
  tree.set("summary", summary);
  return Entry.fromTree(tree).text;
}

Deno.test("labelledTurnStart() writes what the ordered tree writes", () => {
  // The turn_starts a released jp's save leaves, and some that are not bare.
  const starts = ConversationStream.parse(
    releasedJpBytes(generateConversation(3, 100, 1, 0)),
  ).turns().map((turn) => turn.start!);
  assert.ok(starts[0]!.text.startsWith('{\n    "timestamp": '));
  const parse = (text: string) =>
    ConversationStream.parse(new TextEncoder().encode(`[\n  ${text}\n]\n`))
      .entries[0]!;
  starts.push(
    parse(
      '{\n    "timestamp": "2026-01-01 00:00:00.0",\n    "type": "turn_start",\n    "metadata": {\n      "a": "Yg=="\n    }\n  }',
    ),
    parse(
      '{\n    "type": "turn_start",\n    "timestamp": "2026-01-01 00:00:00.0"\n  }',
    ),
    parse(
      '{\n    "timestamp": "2026-01-01 \\u0030\\"",\n    "type": "turn_start"\n  }',
    ),
  );
  const summaries = [
    "Add retry backoff",
    'Quote " and backslash \\ and tab\t',
    "é 😀 \u2028 \u0085 日本語",
  ];
  for (const start of starts) {
    for (const summary of summaries) {
      const entry = labelledTurnStart(start, "a1b2c3d", summary);
      assert.equal(entry.text, throughTree(start, "a1b2c3d", summary));
      assert.equal(entry.eventId, "a1b2c3d");
      assert.equal(entry.type, "turn_start");
      assert.equal(entry.timestamp, start.timestamp);
      assert.equal(entry.data().summary, summary);
    }
  }
});

Deno.test("Entry.mayHaveKey() is false only when the entry surely lacks the key, and a turn's summary reads the same", () => {
  const file = (...entries: string[]) =>
    new TextEncoder().encode(`[\n  ${entries.join(",\n  ")}\n]\n`);
  const bare =
    '{\n    "event_id": "k3m9x2a",\n    "timestamp": "2026-01-01 00:00:00.0",\n    "type": "turn_start"\n  }';
  const labelled = bare.replace(
    '"type": "turn_start"',
    '"type": "turn_start",\n    "summary": "Fix it"',
  );
  const escaped = bare.replace(
    '"type": "turn_start"',
    '"type": "turn_start",\n    "\\u0073ummary": "Spelled with an escape"',
  );
  const kept = ConversationStream.parse(file(bare, labelled, escaped), {
    keepPayloads: true,
  });
  const plain = ConversationStream.parse(file(bare, labelled, escaped));
  for (const stream of [plain, kept]) {
    const [a, b, c] = stream.entries;
    assert.equal(a!.mayHaveKey("summary"), false);
    assert.equal(b!.mayHaveKey("summary"), true);
    assert.equal(c!.mayHaveKey("summary"), true);
    assert.deepEqual(stream.turns().map((turn) => turn.summary), [
      undefined,
      "Fix it",
      "Spelled with an escape",
    ]);
  }
  // A key that only appears as a value is no key of the parsed entry.
  const value = new Entry('{"type": "x", "timestamp": "summary"}', {
    type: "x",
    timestamp: "summary",
    eventId: undefined,
  }, { type: "x", timestamp: "summary" });
  assert.equal(value.mayHaveKey("summary"), false);
});
