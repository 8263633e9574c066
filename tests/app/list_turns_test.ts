import assert from "node:assert/strict";
import { listTurns } from "../../src/app/list_turns.ts";
import { testSession } from "../support/session.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";

Deno.test("listTurns() gives each turn its summary or its fallback, in order", async () => {
  await using ws = await tempWorkspace();
  const events = [
    {
      timestamp: "2026-01-01 00:00:00.0",
      type: "turn_start",
      event_id: "a1",
      summary: "Fix the parser",
    },
    {
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: "The parser fails",
    },
    {
      timestamp: "2026-01-01 00:00:00.2",
      type: "chat_response",
      message: "ok",
    },
    { timestamp: "2026-01-01 00:00:01.0", type: "turn_start", event_id: "b2" },
    {
      timestamp: "2026-01-01 00:00:01.1",
      type: "chat_request",
      content: "Now add tests\nplease",
    },
  ];
  await writeConversation(
    ws.conversations,
    "17800000000",
    new TextEncoder().encode(JSON.stringify(events, null, 2)),
  );
  const rows = await listTurns(testSession(ws), {
    conversation: "17800000000",
    stale: false,
  });
  assert.deepEqual(
    rows.map((row) => [row.index, row.event_id, row.summary, row.fallback]),
    [
      [0, "a1", "Fix the parser", "The parser fails"],
      [1, "b2", null, "Now add tests"],
    ],
  );
});
