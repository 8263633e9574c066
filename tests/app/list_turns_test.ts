import assert from "node:assert/strict";
import { join } from "node:path";
import { listTurns } from "../../src/app/read/list_turns.ts";
import { loadTurnHeads } from "../../src/workspace/conversation_io.ts";
import { fixtureConversations } from "../support/paths.ts";
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

/** The rows of the stream's reading (`--stale` reads the stream), without what only it adds. */
async function streamRows(
  ws: Parameters<typeof testSession>[0],
  conversation: string,
) {
  const rows = await listTurns(testSession(ws), { conversation, stale: true });
  return rows.map(({ stale: _stale, source: _source, ...row }) => row);
}

Deno.test("listTurns() with nothing to restore gives the stream's rows from each turn's head, on real jp conversations too", async () => {
  await using ws = await tempWorkspace();
  const dirs = fixtureConversations();
  const files = [
    ...dirs.map((dir) => Deno.readFileSync(join(dir, "events.json"))),
    new TextEncoder().encode(JSON.stringify([
      { type: "config_delta", timestamp: "2026-01-01 00:00:00.0", delta: {} },
      {
        type: "chat_request",
        timestamp: "2026-01-01 00:00:01.0",
        content: "\n  Lead   in",
      },
      {
        type: "turn_start",
        timestamp: "2026-01-01 00:00:02.0",
        summary: "Kept",
      },
      { type: "chat_request", timestamp: "2026-01-01 00:00:03.0", content: 5 },
    ])),
  ];
  for (const [index, bytes] of files.entries()) {
    const id = String(17800000000 + index);
    await writeConversation(ws.conversations, id, bytes);
    const rows = await listTurns(testSession(ws), {
      conversation: id,
      stale: false,
    });
    assert.deepEqual(rows, await streamRows(ws, id), dirs[index] ?? id);
  }
});

Deno.test("loadTurnHeads() leaves unreadable and refused files to the stream's reading", async () => {
  await using ws = await tempWorkspace();
  const events = JSON.stringify(
    [{ type: "turn_start", timestamp: "2026-01-01 00:00:00.0" }],
    null,
    2,
  );
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    new TextEncoder().encode(events),
  );
  const ref = { id: "17800000000", copies: [{ root: undefined, dir }] };
  assert.deepEqual(await loadTurnHeads(ref), [
    { eventId: undefined, summary: undefined, request: undefined },
  ]);
  // A byte order mark: the stream's parser reports it.
  await Deno.writeTextFile(join(dir, "events.json"), `\uFEFF${events}`);
  assert.equal(await loadTurnHeads(ref), undefined);
  await assert.rejects(
    () =>
      listTurns(testSession(ws), { conversation: "17800000000", stale: false }),
    /events\.json/,
  );
  await Deno.remove(join(dir, "events.json"));
  assert.equal(await loadTurnHeads(ref), undefined);
});
