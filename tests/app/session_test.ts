import assert from "node:assert/strict";
import {
  NoConversationsError,
  resolveTarget,
  targetConversation,
} from "../../src/app/session.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
import { testSession } from "../support/session.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

Deno.test("resolveTarget() follows jp's keywords: last-activated by metadata, last-created by id", async () => {
  await using ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    "17800000001",
    simpleTurns("a", 1),
    '{\n  "last_activated_at": "2026-03-01 00:00:00.0"\n}\n',
  );
  await writeConversation(
    ws.conversations,
    "17800000002-newer",
    simpleTurns("b", 1),
    '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
  );
  const session = testSession(ws);
  const workspace = await Workspace.open(ws.root, session.env);
  assert.equal((await resolveTarget(workspace, "last")).id, "17800000001");
  assert.equal(
    (await resolveTarget(workspace, "last-activated")).id,
    "17800000001",
  );
  assert.equal(
    (await resolveTarget(workspace, "last-created")).id,
    "17800000002",
  );
  assert.equal(
    (await resolveTarget(workspace, "jp-c17800000002")).id,
    "17800000002",
  );
});

Deno.test("targetConversation() with nothing named in an empty workspace names the fix", async () => {
  await using ws = await tempWorkspace();
  await assert.rejects(
    targetConversation(testSession(ws), undefined),
    (error) =>
      error instanceof NoConversationsError &&
      /jpt query --new/.test(error.message),
  );
});
