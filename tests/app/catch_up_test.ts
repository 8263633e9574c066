import assert from "node:assert/strict";
import { join } from "node:path";
import { catchUpConversation } from "../../src/app/summarize/catch_up.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import type { PreparedTurn } from "../../src/summary/prepared_turn.ts";
import {
  type ConversationRef,
  resolveConversation,
} from "../../src/workspace/conversation_ref.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";

function turns(count: number): Uint8Array {
  const entries = Array.from({ length: count }, (_, i) => [
    { timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
    {
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: `ask ${i}`,
    },
    {
      timestamp: "2026-01-01 00:00:00.2",
      type: "chat_response",
      message: `answer ${i}`,
    },
  ]).flat();
  return new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n");
}

/** A conversation of `count` turns with `base_config.json`, in a workspace. */
async function conversation(ws: { conversations: string }, count: number) {
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    turns(count),
  );
  await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
  return {
    events: join(dir, "events.json"),
    ref: { id: "17800000000", copies: [{ root: undefined, dir }] },
  };
}

/** A catch-up whose model labels each turn `Label <id>`, after `onBatch`. */
function catchUpWith(
  ref: ConversationRef,
  batchSize: number,
  onBatch: () => Promise<void>,
  workspace?: Workspace,
) {
  return catchUpConversation({
    workspace,
    ref,
    batchSize,
    signal: new AbortController().signal,
    resolveModel: () =>
      Promise.resolve({
        contextWindow: 100_000,
        summarizer: {
          modelId: "test/fake",
          summarize: async (batch: readonly PreparedTurn[]) => {
            await onBatch();
            return new Map(batch.map((turn) => [turn.id, `Label ${turn.id}`]));
          },
        },
      }),
  });
}

Deno.test("catchUpConversation() writes a large conversation once, not after every batch", async () => {
  await using ws = await tempWorkspace();
  const { events, ref } = await conversation(ws, 30);
  const seen: Array<number | null> = [];
  const result = await catchUpWith(ref, 2, async () => {
    seen.push((await Deno.stat(events)).ino);
  });
  assert.equal(seen.length, 15, "15 batches of 2");
  assert.equal(
    new Set(seen).size,
    1,
    "the file was not rewritten between batches",
  );
  assert.equal(result.summarized.length, 30);
  const stream = ConversationStream.parse(await Deno.readFile(events));
  assert.ok(stream.turns().every((turn) => turn.summary?.startsWith("Label ")));
  assert.notEqual(
    (await Deno.stat(events)).ino,
    seen[0],
    "and was written at the end",
  );
});

Deno.test("catchUpConversation() gives no stamp when jp saved a new turn during the requests (a watcher looks again)", async () => {
  await using ws = await tempWorkspace();
  const { events, ref } = await conversation(ws, 2);
  let jpSaved = false;
  const catchUp = () =>
    catchUpWith(ref, 10, async () => {
      if (jpSaved) return;
      // jp saves a third turn while the request is out.
      jpSaved = true;
      await Deno.writeFile(events, turns(3));
    });
  const first = await catchUp();
  assert.equal(first.summarized.length, 2);
  assert.equal(first.stamp, undefined, "the new turn is still to be looked at");
  const written = ConversationStream.parse(await Deno.readFile(events));
  assert.equal(written.turns().length, 3);
  assert.equal(written.turns()[2]!.summary, undefined);
  // The next look labels it, and then all is caught up.
  const second = await catchUp();
  assert.equal(second.summarized.length, 1);
  assert.ok(second.stamp !== undefined);
  const done = ConversationStream.parse(await Deno.readFile(events));
  assert.ok(done.turns().every((turn) => turn.summary !== undefined));
});

Deno.test("answers for a conversation renamed while they were asked for are written at its new place, found by its id", async () => {
  await using ws = await tempWorkspace();
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    turns(2),
  );
  await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
  const workspace = await Workspace.open(ws.root, (name) => ws.env[name]);
  const ref = await resolveConversation(workspace, "17800000000");
  const renamed = join(ws.conversations, "17800000000-a-title-jp-gave-it");
  // jp renames the directory while the request is out.
  const result = await catchUpWith(
    ref,
    5,
    () => Deno.rename(ref.copies[0]!.dir, renamed),
    workspace,
  );
  assert.equal(result.summarized.length, 2);
  const stream = ConversationStream.parse(
    await Deno.readFile(join(renamed, "events.json")),
  );
  assert.deepEqual(
    stream.turns().map((turn) => turn.summary),
    stream.turns().map((turn) => `Label ${turn.id}`),
  );
});
