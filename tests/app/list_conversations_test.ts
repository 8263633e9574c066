import assert from "node:assert/strict";
import { join } from "node:path";
import { listConversations } from "../../src/app/read/list_conversations.ts";
import { testSession } from "../support/session.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

Deno.test("listConversations() lists each conversation with its turns and title, and warns about a half-created one", async () => {
  await using ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    "17800000001-parser",
    simpleTurns("p", 3),
    '{\n  "title": "Parser",\n  "last_activated_at": "2026-01-02 00:00:00.0"\n}\n',
  );
  await writeConversation(ws.conversations, "17800000002", simpleTurns("q", 1));
  await Deno.mkdir(join(ws.conversations, "17800000003"));
  const listing = await listConversations(testSession(ws));
  assert.deepEqual(
    listing.rows.map((row) => [row.id, row.title, row.turns]).sort(),
    [["jp-c17800000001", "Parser", 3], ["jp-c17800000002", null, 1]],
  );
  assert.equal(listing.warnings.length, 1);
  assert.match(listing.warnings[0]!, /17800000003.*incomplete/);
});
