import assert from "node:assert/strict";
import { join } from "node:path";
import { runJpt } from "../support/cli.ts";
import {
  fixtureConversations,
  FIXTURES_DIR,
  testdata,
} from "../support/paths.ts";
import {
  copyConversation,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

Deno.test("jpt turns lists turns with ids, summaries and marked fallbacks", async () => {
  await using ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    "17758406187",
    await Deno.readFile(testdata("streams", "g4.json")),
  );
  const result = await runJpt(["turns", "jp-c17758406187"], { cwd: ws.root });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    result.stdout,
    "# Turn 1 (k3m9x2a): Set up project structure with error handling\n" +
      "# Turn 2 (p8q2r4b): [fallback] fix that warning\n",
  );
});

Deno.test("jpt turns defaults to the most recently activated conversation", async () => {
  await using ws = await tempWorkspace();
  const g3 = await Deno.readFile(testdata("streams", "g3.json"));
  await writeConversation(
    ws.conversations,
    "17758406187",
    await Deno.readFile(testdata("streams", "g4.json")),
    '{\n  "last_activated_at": "2026-05-01 00:00:00.5"\n}\n',
  );
  await writeConversation(
    ws.conversations,
    "17758406999",
    g3,
    '{\n  "last_activated_at": "2026-05-01 00:00:00.25"\n}\n',
  );
  const result = await runJpt(["turns", "--json"], { cwd: ws.root });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(
    JSON.parse(result.stdout).map((row: { event_id: string }) => row.event_id),
    ["k3m9x2a", "p8q2r4b"],
  );
});

Deno.test("jpt turns sanitizes summaries and requests for the terminal", async () => {
  await using ws = await tempWorkspace();
  const events = JSON.stringify(
    [
      {
        event_id: "evil001",
        timestamp: "2026-01-01 00:00:00.0",
        type: "turn_start",
        summary: "Clear \u001b[2J screen",
      },
      {
        timestamp: "2026-01-01 00:00:00.1",
        type: "chat_request",
        content: "x",
      },
      {
        event_id: "evil002",
        timestamp: "2026-01-01 00:00:00.2",
        type: "turn_start",
      },
      {
        timestamp: "2026-01-01 00:00:00.3",
        type: "chat_request",
        content: "\u001b]0;pwned\u0007title \u009b31m",
      },
    ],
    null,
    2,
  ) + "\n";
  await writeConversation(
    ws.conversations,
    "1",
    new TextEncoder().encode(events),
  );
  const result = await runJpt(["turns", "1"], { cwd: ws.root });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    result.stdout,
    "# Turn 1 (evil001): Clear  screen\n# Turn 2 (evil002): [fallback] title\n",
  );
  // deno-lint-ignore no-control-regex -- asserting no control character is printed
  assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(result.stdout));
  const json = await runJpt(["turns", "1", "--json"], { cwd: ws.root });
  assert.deepEqual(JSON.parse(json.stdout)[0], {
    index: 0,
    event_id: "evil001",
    summary: "Clear \u001b[2J screen",
    fallback: "x",
    restored: false,
  });
});

Deno.test("jpt turns reports a broken events.json with its path and byte offset", async () => {
  await using ws = await tempWorkspace();
  const truncated = new TextEncoder().encode(
    '[\n  {\n    "timestamp": "t",\n    "type": "chat_req',
  );
  const cases: Array<[string, Uint8Array, RegExp]> = [
    [
      "truncated",
      truncated,
      new RegExp(
        `Unterminated string \\(the file looks truncated\\) at byte ${truncated.length} \\(entry 0\\)`,
      ),
    ],
    [
      "utf8",
      new Uint8Array([0x5b, 0x22, 0xc3, 0x28, 0x22, 0x5d]),
      /Invalid UTF-8 at byte 2/,
    ],
    [
      "object",
      new TextEncoder().encode('{"a": 1}\n'),
      /array of entries at byte 0/,
    ],
    [
      "no-timestamp",
      new TextEncoder().encode('[\n  {\n    "type": "chat_request"\n  }\n]\n'),
      /Entry has no "timestamp" at byte 4 \(entry 0\)/,
    ],
  ];
  for (const [name, bytes, pattern] of cases) {
    const dir = await writeConversation(ws.conversations, `1-${name}`, bytes);
    const result = await runJpt(["turns", dir], { cwd: ws.root });
    assert.equal(result.code, 1, name);
    assert.ok(
      result.stderr.includes(join(dir, "events.json")),
      `${name}: ${result.stderr}`,
    );
    assert.match(result.stderr, pattern, name);
    assert.deepEqual(
      await Deno.readFile(join(dir, "events.json")),
      bytes,
      `${name}: the file is untouched`,
    );
  }
});

Deno.test("jpt turns explains a missing workspace or conversation", async () => {
  await using ws = await tempWorkspace();
  const noWorkspace = await runJpt(["turns"], { cwd: ws.userData });
  assert.equal(noWorkspace.code, 1);
  assert.match(
    noWorkspace.stderr,
    /No jp workspace \(a "\.jp" directory\) found/,
  );
  const missing = await runJpt(["turns", "jp-c42"], { cwd: ws.root });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /No conversation "jp-c42"/);
});

Deno.test({
  name: "jpt turns --json shows turn 0's fallback on every legacy fixture",
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    await using ws = await tempWorkspace();
    for (const dir of fixtureConversations()) {
      const copy = await copyConversation(dir, ws.conversations);
      const result = await runJpt(["turns", "--json", copy], { cwd: ws.root });
      assert.equal(result.code, 0, result.stderr);
      const rows = JSON.parse(result.stdout);
      const firstRequest =
        (JSON.parse(await Deno.readTextFile(join(dir, "events.json"))) as Array<
          { type: string; content?: string }
        >)
          .find((entry) => entry.type === "chat_request")!.content!;
      const line = firstRequest.split("\n").find((part) => part.trim() !== "")!
        .replace(/\s+/g, " ").trim();
      const points = Array.from(line);
      const expected = points.length <= 72
        ? line
        : points.slice(0, 71).join("").trimEnd() + "…";
      assert.equal(rows[0].index, 0);
      assert.equal(rows[0].summary, null);
      assert.equal(rows[0].fallback, expected, dir);
    }
  },
});
