import assert from "node:assert/strict";
import {
  canonicalEntryKeys,
  CONVERSATION_EVENT_TYPES,
  Entry,
  inCanonicalKeyOrder,
  labelledTurnStart,
} from "../../src/conversation/entry.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { generateConversation } from "../../bench/generate.ts";
import { releasedJpBytes } from "../support/workspace.ts";
import { generator } from "../support/seeded.ts";

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

Deno.test("inCanonicalKeyOrder() answers as comparing the keys with canonicalEntryKeys() does", () => {
  const names = [
    "event_id",
    "timestamp",
    "type",
    "summary",
    "content",
    "schema",
    "author",
    "message",
    "reasoning",
    "data",
    "id",
    "name",
    "arguments",
    "is_error",
    "source",
    "question",
    "answer",
    "metadata",
    "delta",
    "extra",
  ];
  // jp's event types, one it does not give fields, and no type name at all.
  const types = [...CONVERSATION_EVENT_TYPES, "config_delta", "toString", 7];
  const random = generator(126);
  let inOrder = 0;
  for (let round = 0; round < 20_000; round++) {
    const type = types[random.int(0, types.length - 1)];
    const entry = {
      type,
      eventId: random.chance(0.5),
      metadata: random.chance(0.3),
    };
    // Mostly the keys jp writes, so that both answers come up often.
    let keys = canonicalEntryKeys(
      names.filter(() => random.chance(0.4)),
      entry,
    );
    if (random.chance(0.5)) {
      const pool = names.filter((name) => !keys.includes(name));
      const changes = random.int(1, 3);
      for (let change = 0; change < changes; change++) {
        const at = random.int(0, keys.length);
        if (random.chance(0.4) && pool.length > 0) {
          keys.splice(
            at,
            0,
            pool.splice(random.int(0, pool.length - 1), 1)[0]!,
          );
        } else if (random.chance(0.5) && keys.length > 0) {
          keys.splice(Math.min(at, keys.length - 1), 1);
        } else if (keys.length > 1) {
          const [moved] = keys.splice(Math.min(at, keys.length - 1), 1);
          keys.splice(random.int(0, keys.length), 0, moved!);
        }
      }
    }
    keys = [...new Set(keys)];
    const order = canonicalEntryKeys(keys, entry);
    const expected = order.length === keys.length &&
      order.every((key, i) => key === keys[i]);
    assert.equal(
      inCanonicalKeyOrder(keys, entry),
      expected,
      `${JSON.stringify(keys)} ${JSON.stringify(entry)}`,
    );
    if (expected) inOrder++;
  }
  // Both answers, often.
  assert.ok(inOrder > 5_000 && inOrder < 15_000, String(inOrder));
});
