import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConversation } from "../../src/workspace/conversation_io.ts";
import { lockConversation } from "../../src/workspace/conversation_lock.ts";
import { LockHeldError } from "../../src/workspace/lock.ts";
import type { ConversationRef } from "../../src/workspace/conversation_ref.ts";
import {
  HELD,
  holdConversation,
  RELEASED,
  withConversation,
} from "../../src/workspace/unit_of_work.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

async function oneConversation() {
  const ws = await tempWorkspace();
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("u", 2),
  );
  const ref = { id: "17800000000", copies: [{ root: undefined, dir }] };
  return { ws, dir, ref };
}

Deno.test("withConversation() saves what the work changed, and nothing when it changed nothing", async () => {
  const { ws, dir, ref } = await oneConversation();
  await using _ = ws;
  const events = join(dir, "events.json");
  const before = await Deno.stat(events);
  await withConversation(undefined, ref, { lock: "now" }, () => {});
  assert.equal(
    (await Deno.stat(events)).mtime?.getTime(),
    before.mtime?.getTime(),
  );
  await withConversation(undefined, ref, { lock: "now" }, (conversation) => {
    conversation.stream.setTurnSummary("ut0", "Asked question 0");
  });
  const after = await loadConversation(ref);
  assert.equal(after.stream.turns()[0]!.summary, "Asked question 0");
});

Deno.test("withConversation() removes stray temporary files and releases the lock when the work throws", async () => {
  const { ws, dir, ref } = await oneConversation();
  await using _ = ws;
  await Deno.writeTextFile(join(dir, "events.json.abc123.tmp"), "partial");
  await assert.rejects(
    withConversation(undefined, ref, { lock: "now" }, () => {
      throw new Error("boom");
    }),
    /boom/,
  );
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
    "events.json",
    "metadata.json",
  ]);
  const lock = await lockConversation(undefined, ref);
  await lock.release();
});

Deno.test("withConversation() with a held lock: if-free says HELD and runs nothing, now throws", async () => {
  const { ws, ref } = await oneConversation();
  await using _ = ws;
  const held = await lockConversation(undefined, ref);
  try {
    let ran = false;
    let told = "";
    const result = await withConversation(undefined, ref, {
      lock: "if-free",
      onHeld: (error) => told = error.message,
    }, () => {
      ran = true;
    });
    assert.equal(result, HELD);
    assert.equal(ran, false);
    assert.match(told, /locked/);
    await assert.rejects(
      withConversation(undefined, ref, { lock: "now" }, () => {}),
      LockHeldError,
    );
  } finally {
    await held.release();
  }
});

Deno.test("withConversation() refuses a conversation with duplicate event ids before the work runs", async () => {
  const ws = await tempWorkspace();
  await using _ = ws;
  const events = [
    {
      timestamp: "2026-01-01 00:00:00.0",
      type: "turn_start",
      event_id: "same",
    },
    {
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: "a",
      event_id: "same",
    },
  ];
  const dir = await writeConversation(
    ws.conversations,
    "1",
    new TextEncoder().encode(JSON.stringify(events)),
  );
  const ref = { id: "1", copies: [{ root: undefined, dir }] };
  let ran = false;
  await assert.rejects(
    withConversation(undefined, ref, { lock: "now" }, () => {
      ran = true;
    }),
    /used by more than one entry/,
  );
  assert.equal(ran, false);
  // Read-only work may still look at it.
  assert.equal(
    await withConversation(
      undefined,
      ref,
      { lock: "now", readOnly: true },
      (c) => c.stream.entries.length,
    ),
    2,
  );
});

/** Holds a conversation's lock for background work that ends when `finish` is called. */
async function holdUntilFinished<T>(ref: ConversationRef, value: T) {
  let finish!: () => void;
  const background = new Promise<void>((resolve) => finish = resolve);
  const held = await holdConversation(
    undefined,
    ref,
    { lock: "now" },
    () => Promise.resolve({ value, background }),
  );
  assert.ok(held !== HELD && held.unit !== undefined);
  return { unit: held.unit, value: held.value, finish };
}

/** Fails unless the conversation's lock can be taken (and gives it back). */
async function assertLockFree(ref: ConversationRef): Promise<void> {
  const lock = await lockConversation(undefined, ref);
  await lock.release();
}

Deno.test("holdConversation() keeps the lock while its background work runs; a write that joins meanwhile is saved under it, one after the lock is let go is not", async () => {
  const { ws, ref } = await oneConversation();
  await using _ = ws;
  const { unit, value, finish } = await holdUntilFinished(ref, "read");
  assert.equal(value, "read");
  // Nobody else gets the lock while the background work runs.
  await assert.rejects(lockConversation(undefined, ref), LockHeldError);
  const joined = await unit.join((conversation) => {
    conversation.stream.setTurnSummary("ut1", "Joined while held");
    return "written";
  });
  assert.equal(joined, "written");
  assert.equal(
    (await loadConversation(ref)).stream.turns()[1]!.summary,
    "Joined while held",
  );
  await assert.rejects(lockConversation(undefined, ref), LockHeldError);
  finish();
  await unit.released;
  assert.equal(await unit.join(() => "late"), RELEASED);
  await assertLockFree(ref);
});

Deno.test("holdConversation(): the lock outlasts the background work until the write that joined has been saved", async () => {
  const { ws, ref } = await oneConversation();
  await using _ = ws;
  const { unit, finish } = await holdUntilFinished(ref, undefined);
  let letWriteEnd!: () => void;
  const writeMayEnd = new Promise<void>((resolve) => letWriteEnd = resolve);
  const writing = unit.join(async (conversation) => {
    await writeMayEnd;
    conversation.stream.setTurnSummary("ut0", "Saved before the release");
  });
  finish();
  // The background work is over, the write is not: still held.
  await new Promise((resolve) => setTimeout(resolve, 10));
  await assert.rejects(lockConversation(undefined, ref), LockHeldError);
  letWriteEnd();
  await writing;
  await unit.released;
  assert.equal(
    (await loadConversation(ref)).stream.turns()[0]!.summary,
    "Saved before the release",
  );
  await assertLockFree(ref);
});

Deno.test("holdConversation() without background work releases the lock as withConversation() does, also when the work throws", async () => {
  const { ws, ref } = await oneConversation();
  await using _ = ws;
  const held = await holdConversation(
    undefined,
    ref,
    { lock: "now" },
    () => Promise.resolve({ value: 1 }),
  );
  assert.ok(held !== HELD && held.unit === undefined);
  await assert.rejects(
    holdConversation(undefined, ref, { lock: "now" }, () => {
      throw new Error("boom");
    }),
    /boom/,
  );
  await assertLockFree(ref);
});
