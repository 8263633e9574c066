/**
 * `jpt edit` through the real entry point, with a scripted editor
 * (`tests/support/scripted_editor.ts`) standing in for the user.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt } from "../support/cli.ts";
import { SCRIPTED_EDITOR, testdata } from "../support/paths.ts";
import {
  editBaseWorkspace,
  saveAsReleasedJp,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const EDITOR = SCRIPTED_EDITOR;
const decoder = new TextDecoder();
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

async function setUp() {
  const { ws, dir } = await editBaseWorkspace();
  const events = () => Deno.readFile(join(dir, "events.json"));
  const edit = (
    args: string[],
    edits: unknown[],
    extraEnv: Record<string, string> = {},
  ) =>
    runJpt(["edit", ...args], {
      cwd: ws.root,
      env: {
        ...ws.env,
        EDITOR,
        JPT_TEST_EDIT: JSON.stringify(edits),
        ...extraEnv,
      },
    });
  return { ws, dir, events, edit };
}

/** Compares with a golden file in testdata/golden/ (UPDATE_GOLDEN=1 rewrites it, never in CI). */
async function assertGolden(bytes: Uint8Array, name: string): Promise<void> {
  const path = testdata("golden", name);
  if (UPDATE) await Deno.writeFile(path, bytes);
  assert.equal(decoder.decode(bytes), await Deno.readTextFile(path), name);
}

/** The turn_start entries, as text, of a file. */
const starts = (bytes: Uint8Array) =>
  ConversationStream.parse(bytes).entries.filter((e) => e.type === "turn_start")
    .map((e) => e.text);

Deno.test("jpt edit -i: reword turn 2 and change turn 3's request (acceptance)", async () => {
  const { ws, dir, events, edit } = await setUp();
  await using _ = ws;
  const before = await events();
  const result = await edit(["-i"], [
    {
      op: "replace",
      find: "(turn002): Fix the unused variable warning",
      with: "(turn002): Rename the unused attempt variable",
    },
    {
      op: "replaceInFile",
      file: "^008-request\\.md$",
      find: "option 2",
      with: "option 3",
    },
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /Written: changed turn 3; reworded turn 2/);
  const after = await events();
  await assertGolden(after, "edit_reword_and_change.json");
  const [b, a] = [starts(before), starts(after)];
  assert.equal(a[0], b[0], "turn 1 keeps its turn_start byte for byte");
  const turns = ConversationStream.parse(after).turns();
  assert.equal(turns[1]!.summary, "Rename the unused attempt variable");
  assert.equal(turns[2]!.summary, undefined);
  assert.equal(turns[2]!.fallbackSummary(), "yes, do option 3");
  const beforeEntries = ConversationStream.parse(before).entries;
  for (const entry of ConversationStream.parse(after).entries) {
    if (entry.eventId === "turn002" || entry.eventId === "req0003") continue;
    assert.equal(
      entry.text,
      beforeEntries.find((e) => e.eventId === entry.eventId)!.text,
      `${entry.eventId} keeps its bytes`,
    );
  }
  const check = await runJpt(["check", dir], { cwd: ws.root, env: ws.env });
  assert.equal(check.code, 0, check.stdout);
});

Deno.test("jpt edit -i: an emptied header clears the summary", async () => {
  const { ws, events, edit } = await setUp();
  await using _ = ws;
  const result = await edit(["-i"], [{
    op: "replace",
    find: "(turn001): Add retry backoff to stream handler",
    with: "(turn001):",
  }]);
  assert.equal(result.code, 0, result.stderr);
  await assertGolden(await events(), "edit_clear.json");
  assert.equal(
    ConversationStream.parse(await events()).turns()[0]!.summary,
    undefined,
  );
});

Deno.test("jpt edit -i: deleting a block drops the turn, deleting a line drops the event", async () => {
  const { ws, events, edit } = await setUp();
  await using _ = ws;
  const dropTurn = await edit(["-i"], [{
    op: "deleteLines",
    match: "^(# Turn 1 |00[0-3]-)",
  }]);
  assert.equal(dropTurn.code, 0, dropTurn.stderr);
  await assertGolden(await events(), "edit_drop_turn.json");
  const turns = ConversationStream.parse(await events()).turns();
  assert.deepEqual(turns.map((t) => [t.id, t.summary]), [[
    "turn002",
    "Fix the unused variable warning",
  ], ["turn003", undefined]]);

  // Files are numbered afresh each time: the reasoning of (now first) turn 2.
  const dropEvent = await edit(["-i"], [{
    op: "deleteLines",
    match: "-reasoning\\.md$",
  }]);
  assert.equal(dropEvent.code, 0, dropEvent.stderr);
  await assertGolden(await events(), "edit_drop_event.json");
  const after = ConversationStream.parse(await events());
  assert.ok(!after.entries.some((e) => e.eventId === "rsn0002"));
  assert.equal(
    after.turns()[0]!.summary,
    undefined,
    "the turn that lost an event lost its summary",
  );
});

Deno.test("jpt edit -i: editing a tool call keeps base64 on disk and clears the summary", async () => {
  const { ws, events, edit } = await setUp();
  await using _ = ws;
  const result = await edit(["-i"], [{
    op: "replaceInFile",
    file: "^001-tool-call",
    find: "src/stream.rs",
    with: "src/retry.rs",
  }]);
  assert.equal(result.code, 0, result.stderr);
  await assertGolden(await events(), "edit_tool_call.json");
  const call = ConversationStream.parse(await events()).entries.find((e) =>
    e.eventId === "tcq0001"
  )!;
  assert.deepEqual(call.data().arguments, {
    path: btoa("src/retry.rs"),
    limit: 10,
  });
});

Deno.test("jpt edit -i writes nothing when nothing changed or the plan is emptied", async () => {
  const { ws, dir, events, edit } = await setUp();
  await using _ = ws;
  const before = await events();
  const old = new Date("2020-01-01T00:00:00Z");
  await Deno.utime(join(dir, "events.json"), old, old);
  const unchanged = await edit(["-i"], []);
  assert.equal(unchanged.code, 0);
  assert.match(unchanged.stderr, /No changes/);
  const empty = await edit(["-i"], [{ op: "clear" }]);
  assert.equal(empty.code, 0);
  assert.match(empty.stderr, /Empty plan: edit aborted, nothing written/);
  const failing = await edit(["-i"], [{
    op: "replace",
    find: "(turn001):",
    with: "(turn001): x",
  }, { op: "exit", code: 3 }]);
  assert.equal(failing.code, 1);
  assert.match(failing.stderr, /exited with code 3; nothing was written/);
  assert.deepEqual(await events(), before);
  assert.equal(
    (await Deno.stat(join(dir, "events.json"))).mtime?.getTime(),
    old.getTime(),
  );
});

Deno.test("jpt edit fails before the editor opens while another process holds the lock", async () => {
  const { ws, events, edit } = await setUp();
  await using _ = ws;
  const { ConversationLock } = await import("../../src/workspace/lock.ts");
  const lock = await ConversationLock.acquire(
    join(ws.root, ".jp", "locks", "jp-c17800000000.lock"),
  );
  const log = join(ws.userData, "editor.log");
  try {
    const before = await events();
    const result = await edit(["-i"], [], { JPT_TEST_EDITOR_LOG: log });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /locked by another process/);
    await assert.rejects(
      Deno.stat(log),
      Deno.errors.NotFound,
      "the editor never opened",
    );
    assert.deepEqual(await events(), before);
  } finally {
    await lock.release();
  }
});

Deno.test("jpt edit --events validates the raw file and aborts on errors", async () => {
  const { ws, events, edit } = await setUp();
  await using _ = ws;
  const before = await events();
  const broken = await edit(["--events"], [{
    op: "replace",
    find: '"type": "chat_request",\n    "content": "fix that warning"',
    with: '"content": "fix that warning"',
  }]);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /error: events\.json: .*no "type"/);
  assert.match(broken.stderr, /Edit aborted; the conversation is unchanged/);
  assert.deepEqual(await events(), before);
  const fine = await edit(["--events"], [{
    op: "replace",
    find: '"summary": "Fix the unused variable warning"',
    with: '"summary": "Fix the warning"',
  }]);
  assert.equal(fine.code, 0, fine.stderr);
  assert.equal(
    ConversationStream.parse(await events()).turns()[1]!.summary,
    "Fix the warning",
  );
  const help = await runJpt(["edit", "--help"]);
  assert.match(
    help.stdout,
    /remove the "summary" key of\s+its turn_start entry/,
  );
});

Deno.test("jpt turns --stale marks summaries whose turn changed since they were written", async () => {
  const { ws, edit } = await setUp();
  await using _ = ws;
  const stale = () =>
    runJpt(["turns", "--stale", "--json"], {
      cwd: ws.root,
      env: ws.env,
    });
  let rows = JSON.parse((await stale()).stdout);
  assert.deepEqual(rows.map((row: { stale: unknown }) => row.stale), [
    null,
    null,
    null,
  ], "nothing recorded yet");
  // Rewording through jpt records what the summary was written for.
  await edit(["-i"], [{
    op: "replace",
    find: "(turn002): Fix the unused variable warning",
    with: "(turn002): Fix the warning",
  }]);
  rows = JSON.parse((await stale()).stdout);
  // Labels jpt wrote, and those it found in the file meanwhile, are known.
  assert.deepEqual(rows.map((row: { stale: unknown }) => row.stale), [
    false,
    false,
    null,
  ]);
  // A raw edit of turn 2's content, keeping its summary, makes it stale.
  await edit(["--events"], [{
    op: "replace",
    find: "fix that warning",
    with: "fix every warning",
  }]);
  rows = JSON.parse((await stale()).stdout);
  assert.deepEqual(rows.map((row: { stale: unknown }) => row.stale), [
    false,
    true,
    null,
  ]);
  const text = await runJpt(["turns", "--stale"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.match(
    text.stdout,
    /# Turn 1 \(turn001\): Add retry backoff to stream handler\n# Turn 2 \(turn002\): Fix the warning \[stale\]\n/,
  );
});

Deno.test("jpt edit -i reports a malformed plan as a user error and writes nothing", async () => {
  const { ws, events, edit } = await setUp();
  await using _ = ws;
  const before = await events();
  const result = await edit(["-i"], [{
    op: "replace",
    find: "# Turn 1",
    with: "not-a-file-of-this-conversation\n# Turn 1",
  }]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /^error: Plan line \d+: "not-a-file-of-this-conversation" is not a turn header or an event file of this conversation\n$/,
  );
  assert.doesNotMatch(result.stderr, /--verbose/);
  assert.deepEqual(await events(), before);
});

Deno.test("jpt edit -i never turns an entry type from the file into a path outside its scratch directory", async () => {
  await using ws = await tempWorkspace();
  const victim = join(ws.root, "victim.json");
  await Deno.writeTextFile(victim, "untouched\n");
  const depth = "../".repeat(12);
  const events = [
    { timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
    { timestamp: "2026-01-01 00:00:00.1", type: "chat_request", content: "hi" },
    {
      timestamp: "2026-01-01 00:00:00.2",
      type: `x/${depth}${victim.slice(1, -".json".length)}`,
    },
    {
      timestamp: "2026-01-01 00:00:00.3",
      type: "chat_response",
      message: "ok",
    },
  ];
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    new TextEncoder().encode(JSON.stringify(events, null, 2) + "\n"),
  );
  await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
  const result = await runJpt(["edit", "-i"], {
    cwd: ws.root,
    env: { ...ws.env, EDITOR: "true" },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(await Deno.readTextFile(victim), "untouched\n");
  assert.deepEqual(
    [...Deno.readDirSync(ws.root)].map((item) => item.name).sort(),
    [".jp", "victim.json"],
  );
});

Deno.test({
  name: "jpt edit removes scratch directories left by a killed jpt edit",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const { ws, edit } = await setUp();
    await using _ = ws;
    const tmp = await Deno.makeTempDir({ prefix: "jpt-tmp-" });
    try {
      let dead = 4_000_000;
      while (await Deno.stat(`/proc/${dead}`).then(() => true, () => false)) {
        dead++;
      }
      const abandoned = join(tmp, `jpt-edit-${dead}-x1y2z3`);
      await Deno.mkdir(abandoned);
      await Deno.writeTextFile(join(abandoned, "001-request.md"), "secret\n");
      const alive = join(tmp, `jpt-edit-${Deno.pid}-keepme`);
      await Deno.mkdir(alive);
      const result = await edit(["-i"], [], { TMPDIR: tmp });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(
        [...Deno.readDirSync(tmp)].map((item) => item.name),
        [`jpt-edit-${Deno.pid}-keepme`],
        "the abandoned one is gone, the live one and this run's own are not there or kept",
      );
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test("jpt edit -i: moving a turn without a turn_start below another merges it there and clears that turn's summary", async () => {
  await using ws = await tempWorkspace();
  const entries = [
    { type: "config_delta", timestamp: "2026-01-01 00:00:00.0", delta: {} },
    {
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: "legacy ask",
    },
    {
      timestamp: "2026-01-01 00:00:00.2",
      type: "chat_response",
      message: "legacy answer",
    },
    {
      event_id: "t2",
      timestamp: "2026-01-01 00:00:01.0",
      type: "turn_start",
      summary: "Second turn label",
    },
    {
      timestamp: "2026-01-01 00:00:01.1",
      type: "chat_request",
      content: "second ask",
    },
    {
      timestamp: "2026-01-01 00:00:01.2",
      type: "chat_response",
      message: "second answer",
    },
  ];
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n"),
  );
  const editor = join(ws.root, "swap_turns.ts");
  // Swaps the first two turn blocks of the plan.
  await Deno.writeTextFile(
    editor,
    `const file = Deno.args[0]!;
const lines = (await Deno.readTextFile(file)).split("\\n");
const starts = lines.flatMap((line, i) => line.startsWith("# Turn ") ? [i] : []);
const head = lines.slice(0, starts[0]);
const first = lines.slice(starts[0], starts[1]);
const second = lines.slice(starts[1]);
await Deno.writeTextFile(file, [...head, ...second, ...first].join("\\n"));
`,
  );
  const result = await runJpt(["edit", "-i", "--timeout", "0.1"], {
    cwd: ws.root,
    env: { ...ws.env, EDITOR: `${Deno.execPath()} run -A ${editor}` },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /merged turn \(no turn_start: it joined the turn above, whose summary was cleared\) 1/,
  );
  const stream = ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  );
  const turns = stream.turns();
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.summary, undefined);
  assert.deepEqual(
    turns[0]!.events.filter((e) => e.type === "chat_request").map((e) =>
      e.data().content
    ),
    ["second ask", "legacy ask"],
  );
});

Deno.test("jpt edit -i after a released-jp save shows the labels jp dropped, with their ids, and keeps them", async () => {
  const { ws, dir, events, edit } = await setUp();
  await using _ = ws;
  // A first edit records the labels the file has.
  const first = await edit(["-i"], [{
    op: "replace",
    find: "(turn002): Fix the unused variable warning",
    with: "(turn002): Fix the warning",
  }]);
  assert.equal(first.code, 0, first.stderr);
  await saveAsReleasedJp(dir);
  // The plan shows turn 1's label under its own id again, not a fallback.
  const second = await edit(["-i"], [{
    op: "replace",
    find: "(turn001): Add retry backoff to stream handler",
    with: "(turn001): Retry backoff",
  }]);
  assert.equal(second.code, 0, second.stderr);
  const turns = ConversationStream.parse(await events()).turns();
  assert.deepEqual(turns.slice(0, 2).map((t) => [t.id, t.summary]), [
    ["turn001", "Retry backoff"],
    ["turn002", "Fix the warning"],
  ]);
});
