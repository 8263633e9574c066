import assert from "node:assert/strict";
import { join } from "node:path";
import {
  hasUnsavedChanges,
  loadConversation,
  reloadIfChanged,
  saveConversation,
} from "../../src/workspace/conversation_io.ts";
import { testdata } from "../support/paths.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";

async function conversation() {
  const ws = await tempWorkspace();
  const dir = await writeConversation(
    ws.conversations,
    "17758406187",
    await Deno.readFile(testdata("streams", "g2.json")),
  );
  return {
    ws,
    dir,
    ref: { id: "17758406187", copies: [{ root: undefined, dir }] },
  };
}

Deno.test("reloadIfChanged reuses a read while the files are unchanged, and reads again after another writer", async () => {
  const { ws, dir, ref } = await conversation();
  await using _ = ws;
  const loaded = await loadConversation(ref);
  assert.ok(loaded.stamp !== undefined);
  assert.equal(await reloadIfChanged(loaded), loaded, "no change: no read");
  // Another writer replaces events.json (as jp does: a new file renamed over it).
  const events = join(dir, "events.json");
  const text = await Deno.readTextFile(events);
  await Deno.writeTextFile(`${events}.new`, text.replace("}\n]", "}\n]"));
  await Deno.rename(`${events}.new`, events);
  const again = await reloadIfChanged(loaded);
  assert.notEqual(again, loaded, "a replaced file is read again");
  // A save refreshes the stamp: the saved values are what the files hold.
  const id = again.stream.ensureTurnId(0)!;
  again.stream.setTurnSummary(id, "Changed by this writer");
  await saveConversation(again);
  assert.equal(await reloadIfChanged(again), again);
  // metadata.json counts too.
  await Deno.writeTextFile(
    join(dir, "metadata.json"),
    '{\n  "last_activated_at": "2026-02-02 00:00:00.0"\n}\n',
  );
  assert.notEqual(await reloadIfChanged(again), again);
});

Deno.test("hasUnsavedChanges: false after a read and after a save, true after a change, and for a copy never saved", async () => {
  const { ws, ref } = await conversation();
  await using _ = ws;
  const loaded = await loadConversation(ref);
  assert.equal(hasUnsavedChanges(loaded), false);
  // A spread copy carries no revision: it was never saved.
  assert.equal(hasUnsavedChanges({ ...loaded }), true);
  const id = loaded.stream.ensureTurnId(0)!;
  loaded.stream.setTurnSummary(id, "Changed here");
  assert.equal(hasUnsavedChanges(loaded), true, "the stream changed");
  await saveConversation(loaded);
  assert.equal(hasUnsavedChanges(loaded), false, "saved");
  loaded.metadata.setTitle("A title");
  assert.equal(hasUnsavedChanges(loaded), true, "the metadata changed");
});
