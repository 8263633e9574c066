import assert from "node:assert/strict";
import { join } from "node:path";
import {
  outlineOf,
  readOutlineData,
} from "../../src/app/read/conversation_outline.ts";
import { LabelStore } from "../../src/labels/label_store.ts";
import { PROMPT_VERSION } from "../../src/summary/prompt.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";

/** Turns whose texts are not ASCII (byte and character offsets differ), some labelled, one not starting with a `turn_start`. */
function events(count: number): Uint8Array {
  const entries: unknown[] = [
    { timestamp: "2026-01-01 00:00:00.0", type: "config_delta", delta: {} },
    {
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: "before any turn_start: ünïcödé 🎉",
    },
  ];
  for (let i = 1; i < count; i++) {
    entries.push(
      {
        timestamp: `2026-01-01 00:00:0${i}.0`,
        type: "turn_start",
        event_id: `t${i}`,
        ...(i % 2 === 0 ? { summary: `Label ${i} ✓` } : {}),
      },
      {
        timestamp: `2026-01-01 00:00:0${i}.1`,
        type: "chat_request",
        content: `Request ${i} — 日本語 ${"é".repeat(i)}`,
      },
      {
        timestamp: `2026-01-01 00:00:0${i}.2`,
        type: "chat_response",
        message: `Reply ${i} ✨`,
      },
    );
  }
  return new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n");
}

Deno.test("readOutlineData() keeps each turn's label and fallback, and reads any turns back from the file", async () => {
  await using ws = await tempWorkspace();
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    events(6),
  );
  const ref = { id: "17800000000", copies: [{ root: undefined, dir }] };
  const labels = {
    store: LabelStore.at(join(ws.userData, "store")),
    workspace: undefined,
    promptVersion: PROMPT_VERSION,
  };
  const outline = outlineOf(ref, await readOutlineData(ref, labels));
  assert.deepEqual(
    outline.turns.map((turn) => [turn.index, turn.eventId, turn.summary]),
    [
      [0, undefined, undefined],
      [1, "t1", undefined],
      [2, "t2", "Label 2 ✓"],
      [3, "t3", undefined],
      [4, "t4", "Label 4 ✓"],
      [5, "t5", undefined],
    ],
  );
  assert.equal(outline.turns[3]!.fallback, "Request 3 — 日本語 ééé");
  for (const [from, to] of [[0, 6], [0, 1], [2, 4], [5, 6], [4, 9]]) {
    const read = (await outline.readTurns(from!, to!))!;
    assert.deepEqual(
      read.map((turn) => [turn.index, turn.summary, turn.content().requests]),
      outline.turns.slice(from, to).map((turn) => [
        turn.index,
        turn.summary,
        [
          turn.index === 0
            ? "before any turn_start: ünïcödé 🎉"
            : `Request ${turn.index} — 日本語 ${"é".repeat(turn.index)}`,
        ],
      ]),
      `turns ${from}–${to}`,
    );
  }
  assert.deepEqual(
    (await outline.readTurns(1, 2))![0]!.content().responses,
    ["Reply 1 ✨"],
  );

  // Another file in its place (jp's atomic save): nothing read by position.
  await Deno.writeFile(join(dir, "events.json.tmp"), events(6));
  await Deno.rename(join(dir, "events.json.tmp"), join(dir, "events.json"));
  assert.equal(await outline.readTurns(0, 2), undefined);
  const again = outlineOf(ref, await readOutlineData(ref, labels));
  assert.equal((await again.readTurns(0, 2))?.length, 2);
});
